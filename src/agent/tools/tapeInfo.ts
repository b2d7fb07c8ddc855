import * as z from 'zod';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

const input = z.object({});

export const tapeInfoTool: Tool<typeof input> = {
  name: 'tape_info',
  effect: 'read',
  description: "This session's id, title, head entry id, entry counts by kind and number of anchors.",
  inputSchema: input,
  run(_input, ctx) {
    return withTapePort(ctx, 'tape_info', (tape) => {
      const i = tape.info();
      const counts = Object.entries(i.entriesByKind).map(([kind, n]) => `${kind} ${n}`);
      return {
        status: 'ok',
        output: [
          `session: ${i.sessionId}`,
          `title: ${i.title ?? '(none yet)'}`,
          `head entry: ${i.headEntryId}`,
          `entries by kind: ${counts.join(', ') || 'none'}`,
          `anchors: ${i.anchorCount}`,
        ].join('\n'),
      };
    });
  },
};
