import * as z from 'zod';
import type { Tool } from './tool';

const input = z.object({
  path: z.string().min(1).describe('Directory path, relative to the workspace root ("." for the root).'),
});

export const listDirTool: Tool<typeof input> = {
  name: 'list_dir',
  effect: 'read',
  description: 'List a directory in the workspace: one entry per line, sorted, directories end with "/".',
  inputSchema: input,
  async run({ path }, ctx) {
    const entries = await ctx.workspace.listDir(path);
    if (entries.length === 0) return { status: 'ok', output: `${path} is empty` };
    const names = entries.map((e) => (e.kind === 'directory' ? `${e.name}/` : e.name)).sort();
    return { status: 'ok', output: names.join('\n') };
  },
};
