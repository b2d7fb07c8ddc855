import * as z from 'zod';
import { isPermitted } from '../workspace/permissions';
import type { CommandResult } from '../workspace/workspacePort';
import { MAX_TOOL_OUTPUT_BYTES, type Tool } from './tool';

const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
const MAX_COMMAND_TIMEOUT_MS = 30 * 60_000;

const input = z.object({
  command: z.string().min(1).describe('Shell command line, run in the workspace root.'),
  timeoutMs: z
    .number()
    .int()
    .min(1)
    .max(MAX_COMMAND_TIMEOUT_MS)
    .optional()
    .describe(`Kill the command after this many milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`),
});

/** Said after the output, so the model knows a server or watcher it started in the background is gone. */
function leftoverNotes(result: CommandResult): string[] {
  const notes: string[] = [];
  const n = result.killedLeftovers;
  if (n > 0) {
    notes.push(
      result.timedOut || result.aborted
        ? `\n[${n} more process${n === 1 ? '' : 'es'} the command had started ${n === 1 ? 'was' : 'were'} killed with it]`
        : `\n[${n} background process${n === 1 ? '' : 'es'} still running after the command exited ${n === 1 ? 'was' : 'were'} killed; commands cannot leave processes running]`,
    );
  }
  if (result.outputDetached) notes.push('\n[a background process kept the output open; it was detached]');
  return notes;
}

export const runCommandTool: Tool<typeof input> = {
  name: 'run_command',
  effect: 'command',
  description:
    "Run a shell command in the workspace root; prints its exit code and its output (stdout and stderr together, capped). Needs the user's permission to run commands.",
  inputSchema: input,
  async run({ command, timeoutMs }, ctx) {
    if (!(await isPermitted(ctx.permissions, 'command', command)))
      return { status: 'error', output: 'permission to run commands was not granted; the command was not run' };
    const timeout = timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const result = await ctx.workspace.runCommand(command, { timeoutMs: timeout, maxOutputBytes: MAX_TOOL_OUTPUT_BYTES, signal: ctx.signal });
    const outcome = result.timedOut
      ? `killed after the ${timeout} ms timeout`
      : result.aborted
        ? 'killed: the turn was cancelled'
        : result.exitCode === null
          ? `killed by ${result.signal}`
          : `exit code ${result.exitCode}`;
    const ok = result.exitCode === 0 && !result.timedOut && !result.aborted;
    return {
      status: ok ? 'ok' : 'error',
      output: `${outcome}\n${result.output}${leftoverNotes(result).join('')}`,
      ...(result.truncated ? { truncated: true } : {}),
    };
  },
};
