import * as z from 'zod';
import { SEARCH_SCOPES } from '../../store/subagentLinks';
import { KINDS } from '../../tape/entry';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

const input = z.object({
  query: z.string().trim().min(1).describe('Words, "phrases", prefix*, AND/OR/NOT (full-text search of this session).'),
  kinds: z.array(z.enum(KINDS)).min(1).optional().describe('Only entries of these kinds (default: all).'),
  limit: z.number().int().min(1).max(50).optional().describe('Most hits to return, best first (default 10).'),
  scope: z
    .enum(SEARCH_SCOPES)
    .optional()
    .describe('current: this session (default); linked: the subagent sessions this one linked, up to where each ended; current_and_linked: both.'),
});

export const tapeSearchTool: Tool<typeof input> = {
  name: 'tape_search',
  effect: 'read',
  description:
    "Search this session's tape (messages, tool calls and results, errors, anchors) for earlier work, including what the context no longer shows. Returns ranked hits with entry ids for tape_context.",
  inputSchema: input,
  run({ query, kinds, limit, scope }, ctx) {
    return withTapePort(ctx, 'tape_search', (tape) => {
      const hits = tape.search(query, { kinds, limit: limit ?? 10, scope });
      // A link that fails closed is said, so the model does not take its silence for "no match".
      const refused = scope === undefined || scope === 'current' ? [] : tape.links().refused.map((r) => `[not searched: ${r.reason}]`);
      if (hits.length === 0) return { status: 'ok', output: [`no entries match ${JSON.stringify(query)}`, ...refused].join('\n') };
      // Hits of linked subagents name their session, for tape_context's `session`.
      const where = (h: (typeof hits)[number]): string => (h.sessionId === tape.sessionId ? '' : ` in ${h.sessionId}`);
      const lines = hits.map((h) => `#${h.entryId}${where(h)} ${h.kind} ${h.name} (score ${h.score.toFixed(2)}): ${h.snippet.replace(/\s+/g, ' ')}`);
      return { status: 'ok', output: [`${hits.length} hit${hits.length === 1 ? '' : 's'}, best first:`, ...lines, ...refused].join('\n') };
    });
  },
};
