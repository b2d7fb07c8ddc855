import * as z from 'zod';
import { KINDS } from '../../tape/entry';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

const input = z.object({
  query: z.string().trim().min(1).describe('Words, "phrases", prefix*, AND/OR/NOT (full-text search of this session).'),
  kinds: z.array(z.enum(KINDS)).min(1).optional().describe('Only entries of these kinds (default: all).'),
  limit: z.number().int().min(1).max(50).optional().describe('Most hits to return, best first (default 10).'),
});

export const tapeSearchTool: Tool<typeof input> = {
  name: 'tape_search',
  description:
    "Search this session's tape (messages, tool calls and results, errors, anchors) for earlier work, including what the context no longer shows. Returns ranked hits with entry ids for tape_context.",
  inputSchema: input,
  run({ query, kinds, limit }, ctx) {
    return withTapePort(ctx, 'tape_search', (tape) => {
      const hits = tape.search(query, { kinds, limit: limit ?? 10 });
      if (hits.length === 0) return { status: 'ok', output: `no entries match ${JSON.stringify(query)}` };
      const lines = hits.map((h) => `#${h.entryId} ${h.kind} ${h.name} (score ${h.score.toFixed(2)}): ${h.snippet.replace(/\s+/g, ' ')}`);
      return { status: 'ok', output: `${hits.length} hit${hits.length === 1 ? '' : 's'}, best first:\n${lines.join('\n')}` };
    });
  },
};
