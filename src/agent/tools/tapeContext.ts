import * as z from 'zod';
import { SEARCH_SCOPES } from '../../store/subagentLinks';
import { textOf, type Entry } from '../../tape/entry';
import { ForkRefusedError } from '../../tape/fork';
import { withTapePort } from './tapeAccess';
import type { Tool } from './tool';

/** Well under the tool cap: this output goes back into the context the tape tools exist to keep small. */
const TAPE_CONTEXT_MAX_BYTES = 16 * 1024;
const ENTRY_MAX_CHARS = 2000;

const input = z.object({
  entryIds: z.array(z.number().int().min(1)).min(1).max(20).describe('Entry ids to show, e.g. from tape_search.'),
  before: z.number().int().min(0).max(20).optional().describe('Entries to show before each one (default 2).'),
  after: z.number().int().min(0).max(20).optional().describe('Entries to show after each one (default 2).'),
  scope: z
    .enum(SEARCH_SCOPES)
    .optional()
    .describe('current: this session (default); linked or current_and_linked: also the subagent session named by `session`.'),
  session: z.string().min(1).optional().describe('With scope linked or current_and_linked: the linked subagent session the ids are in (from tape_search).'),
});

function body(e: Entry): string {
  const p = e.payload;
  switch (e.kind) {
    case 'message':
      return `${String(p.role)}${p.status === 'sent' ? '' : ` (${String(p.status)})`}: ${textOf(p.content)}`;
    case 'system':
      return textOf(p.content);
    case 'tool_call':
      return `call ${String(p.toolCallId)} ${textOf(p.input ?? null)}`;
    case 'tool_result':
      return `result ${String(p.toolCallId)} ${String(p.status)}${p.truncated === true ? ' (truncated)' : ''}: ${textOf(p.output ?? null)}`;
    case 'error':
      return textOf(p.message);
    case 'anchor':
      return textOf(p.state ?? null);
    case 'event':
      return textOf(p.data ?? null);
  }
}

/** One line head per entry, `>` marking the ones asked for; long bodies keep their start. */
function render(e: Entry, asked: boolean): string {
  const text = body(e);
  const shown = text.length > ENTRY_MAX_CHARS ? `${text.slice(0, ENTRY_MAX_CHARS)} [… ${text.length - ENTRY_MAX_CHARS} more characters]` : text;
  return `${asked ? '>' : ' '}#${e.entryId} ${e.kind} ${e.name}: ${shown}`;
}

export const tapeContextTool: Tool<typeof input> = {
  name: 'tape_context',
  effect: 'read',
  description: "Show entries of this session's tape by id, with a window of neighbouring entries before and after each (default 2), rendered compactly.",
  inputSchema: input,
  run({ entryIds, before, after, scope, session }, ctx) {
    return withTapePort(ctx, 'tape_context', (tape) => {
      if (session !== undefined && (scope ?? 'current') === 'current')
        return { status: 'error', output: '`session` names a linked subagent session: use it with scope linked or current_and_linked' };
      if (scope === 'linked' && session === undefined)
        return { status: 'error', output: 'scope linked needs `session`: the linked subagent session the ids are in (tape_search with scope linked names it)' };
      let entries: Entry[];
      try {
        entries = tape.window(entryIds, before ?? 2, after ?? 2, session);
      } catch (e) {
        if (e instanceof ForkRefusedError) return { status: 'error', output: e.message };
        throw e;
      }
      const where = session === undefined || session === tape.sessionId ? 'this session' : session;
      const found = new Set(entries.map((e) => e.entryId));
      const missing = [...new Set(entryIds)].filter((id) => !found.has(id));
      if (entries.length === 0)
        return {
          status: 'error',
          output: `no entry ${missing.join(', ')} in ${where}${session === undefined ? ` (head ${tape.info().headEntryId})` : ' up to where its link froze it'}`,
        };
      const asked = new Set(entryIds);
      const lines: string[] = [];
      let bytes = 0;
      let omitted = 0;
      for (const e of entries) {
        const line = render(e, asked.has(e.entryId));
        const size = Buffer.byteLength(line, 'utf8') + 1;
        if (omitted > 0 || bytes + size > TAPE_CONTEXT_MAX_BYTES) {
          omitted++;
          continue;
        }
        lines.push(line);
        bytes += size;
      }
      if (omitted > 0) lines.push(`[${omitted} more entries left out at ${TAPE_CONTEXT_MAX_BYTES} bytes; ask for fewer ids or a smaller window]`);
      if (missing.length > 0) lines.push(`[not in ${where}: ${missing.map((id) => `#${id}`).join(', ')}]`);
      return { status: 'ok', output: lines.join('\n') };
    });
  },
};
