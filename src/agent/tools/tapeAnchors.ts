import * as z from 'zod';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

const input = z.object({});

export const tapeAnchorsTool: Tool<typeof input> = {
  name: 'tape_anchors',
  effect: 'read',
  description: "The anchors of this session's tape (session start, compactions, handoffs) with their entry ids, and which one the context starts from.",
  inputSchema: input,
  run(_input, ctx) {
    return withTapePort(ctx, 'tape_anchors', (tape) => {
      const anchors = tape.anchors();
      const inForce = anchors.find((a) => a.inForce);
      const lines = anchors.map((a) => `#${a.entryId} ${a.name}${a.inForce ? '  <- in force: the context starts here' : ''}`);
      lines.push(
        inForce === undefined
          ? 'no compaction or handoff anchor: the context starts at the beginning of the session'
          : `in force: ${inForce.name} (#${inForce.entryId})`,
      );
      return { status: 'ok', output: lines.join('\n') };
    });
  },
};
