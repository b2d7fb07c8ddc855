import * as z from 'zod';
import type { Tool } from './tool';

/** Enough to see a project's shape; past it the model should narrow the pattern. */
export const MAX_FOUND_FILES = 1000;

const input = z.object({
  pattern: z.string().min(1).describe('Glob over workspace-relative paths, e.g. "src/**/*.ts"; a pattern without "/" matches file names at any depth.'),
});

export const findFilesTool: Tool<typeof input> = {
  name: 'find_files',
  effect: 'read',
  description: `Find files in the workspace by glob. Files ignored by .gitignore are left out; at most ${MAX_FOUND_FILES} paths are returned.`,
  inputSchema: input,
  async run({ pattern }, ctx) {
    const found = await ctx.workspace.findFiles(pattern, MAX_FOUND_FILES);
    if (found.items.length === 0) return { status: 'ok', output: `no files match ${pattern}` };
    const more = found.truncated ? `\n[more than ${MAX_FOUND_FILES} files match; narrow the pattern]` : '';
    return { status: 'ok', output: found.items.join('\n') + more, ...(found.truncated ? { truncated: true } : {}) };
  },
};
