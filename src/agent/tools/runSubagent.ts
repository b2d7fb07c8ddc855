import * as z from 'zod';
import { RUN_SUBAGENT } from '../subagent/subagentPort';
import type { Tool } from './tool';

const input = z.object({
  task: z.string().trim().min(1).describe('What the subagent is to do, complete on its own: it sees none of this conversation.'),
  instructions: z.string().optional().describe('How to go about it: constraints, what to report, what to leave alone.'),
  tools: z.array(z.string().min(1)).optional().describe(`Names of your tools the subagent may use (default: all of them but ${RUN_SUBAGENT}).`),
});

export const runSubagentTool: Tool<typeof input> = {
  name: RUN_SUBAGENT,
  effect: 'delegate',
  description:
    'Hand a side task to a subagent: a child session with its own context, a small round budget and the tools you give it. ' +
    "Returns its final answer; its whole session stays on the tape, linked to this one (tape_search with scope 'linked' finds it).",
  inputSchema: input,
  async run({ task, instructions, tools }, ctx) {
    if (ctx.subagents === undefined || ctx.call === undefined)
      return { status: 'error', output: `${RUN_SUBAGENT} runs only in an agent session; nothing was started` };
    const request = { task, ...(instructions !== undefined ? { instructions } : {}), ...(tools !== undefined ? { tools } : {}), call: ctx.call };
    const result = await ctx.subagents.run(request, ctx.signal ?? new AbortController().signal);
    if (result.outcome === 'completed') return { status: 'ok', output: result.answer === '' ? '(the subagent answered with no text)' : result.answer };
    const partial = result.answer.trim() === '' ? '' : `\nIts last text:\n${result.answer}`;
    return {
      status: 'error',
      output: `the subagent ${result.outcome} (${result.reason ?? 'no reason given'}); session ${result.childSessionId} is linked on the tape${partial}`,
    };
  },
};
