import * as z from 'zod';
import type { Tool } from './tool';

export const MAX_TEXT_MATCHES = 200;

const input = z.object({
  query: z.string().min(1).describe('Text to find (case-sensitive), or a JavaScript regular expression when isRegex is true.'),
  isRegex: z.boolean().optional().describe('Treat query as a regular expression (default false).'),
  include: z.string().min(1).optional().describe('Glob limiting the files searched, e.g. "src/**/*.ts".'),
});

export const searchTextTool: Tool<typeof input> = {
  name: 'search_text',
  effect: 'read',
  description: `Search the text of workspace files line by line; prints "path:line: text". Files ignored by .gitignore and binary files are skipped; at most ${MAX_TEXT_MATCHES} matches.`,
  inputSchema: input,
  async run({ query, isRegex, include }, ctx) {
    let pattern: RegExp;
    try {
      pattern = new RegExp(isRegex ? query : escapeRegExp(query));
    } catch (error) {
      return { status: 'error', output: `invalid regular expression ${JSON.stringify(query)}: ${(error as Error).message}` };
    }
    const found = await ctx.workspace.searchText(pattern, { include, limit: MAX_TEXT_MATCHES, signal: ctx.signal });
    if (found.items.length === 0) return { status: 'ok', output: `no matches for ${JSON.stringify(query)}${include ? ` in ${include}` : ''}` };
    const lines = found.items.map((m) => `${m.path}:${m.line}: ${m.text}`);
    const more = found.truncated ? `\n[more than ${MAX_TEXT_MATCHES} matches; narrow the query or include]` : '';
    return { status: 'ok', output: lines.join('\n') + more, ...(found.truncated ? { truncated: true } : {}) };
  },
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
