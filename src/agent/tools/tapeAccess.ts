import type { TapePort } from '../tapeToolPort/tapePort';
import type { ToolContext, ToolResult } from './tool';

/** Runs a tape tool against the context's tape, or answers with an error result when the host gave none. */
export async function withTapePort(ctx: ToolContext, tool: string, run: (tape: TapePort) => ToolResult | Promise<ToolResult>): Promise<ToolResult> {
  if (ctx.tape === undefined) return { status: 'error', output: `${tool} is unavailable: this agent has no tape to read or write` };
  return run(ctx.tape);
}
