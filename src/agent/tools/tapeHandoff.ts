import * as z from 'zod';
import { handoffName } from '../../tape/handoffAnchor';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

const input = z.object({
  name: handoffName.describe('Lowercase words and digits joined by "-" or "_"; the anchor is named handoff/<name>.'),
  summary: z.string().trim().min(1).describe('What was done and what comes next, for whoever continues from here.'),
  state: z.record(z.string(), z.unknown()).optional().describe('Structured facts to carry over (JSON object).'),
});

export const tapeHandoffTool: Tool<typeof input> = {
  name: 'tape_handoff',
  effect: 'tape',
  description:
    'Leave a handoff anchor on the tape: from the next request on, the context starts from this summary (and state) instead of the history before it. Nothing is deleted.',
  inputSchema: input,
  run({ name, summary, state }, ctx) {
    return withTapePort(ctx, 'tape_handoff', async (tape) => {
      const anchor = await tape.handoff(name, summary, state);
      return { status: 'ok', output: `appended anchor ${anchor.name} at entry ${anchor.entryId}; the next request's context starts from it` };
    });
  },
};
