import * as z from 'zod';
import { isPermitted } from '../workspace/permissions';
import { MAX_FILE_READ_BYTES, type Tool } from './tool';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root.'),
  oldText: z
    .string()
    .min(1)
    .optional()
    .describe('Exact text to replace; it must occur exactly once in the file. Omit it to create or overwrite the file with newText.'),
  newText: z.string().describe('Replacement text, or the whole file content when oldText is omitted.'),
});

export const applyEditTool: Tool<typeof input> = {
  name: 'apply_edit',
  effect: 'edit',
  description:
    "Edit a workspace file: replace the one occurrence of oldText with newText, or, without oldText, create or overwrite the file with newText. Needs the user's permission to edit.",
  inputSchema: input,
  async run({ path, oldText, newText }, ctx) {
    const existing = await ctx.workspace.stat(path);
    if (existing?.kind === 'directory') return { status: 'error', output: `${path} is a directory, not a file` };
    let content = newText;
    let done: string;
    if (oldText === undefined) {
      done = existing ? `overwrote ${path}` : `created ${path}`;
    } else {
      if (!existing) return { status: 'error', output: `${path} does not exist; omit oldText to create it` };
      const { bytes, size } = await ctx.workspace.readFile(path, MAX_FILE_READ_BYTES);
      // An edit computed from part of a file would write that part back as the whole.
      if (bytes.length < size)
        return { status: 'error', output: `${path} is ${size} bytes, over the ${MAX_FILE_READ_BYTES} bytes apply_edit edits; it was not changed` };
      const current = Buffer.from(bytes).toString('utf8');
      const count = countOccurrences(current, oldText);
      if (count !== 1) {
        return {
          status: 'error',
          output: `oldText occurs ${count} times in ${path}; it must occur exactly once (${count === 0 ? 'check the exact text, whitespace included' : 'include more surrounding text'})`,
        };
      }
      const at = current.indexOf(oldText);
      content = current.slice(0, at) + newText + current.slice(at + oldText.length);
      done = `replaced 1 occurrence in ${path}`;
    }
    // Asked only once the edit is known to apply, so the user never approves an edit that then fails.
    if (!(await isPermitted(ctx.permissions, 'edit', path)))
      return { status: 'error', output: `permission to edit files was not granted; ${path} was not changed` };
    await ctx.workspace.writeFile(path, content);
    return { status: 'ok', output: done };
  },
};

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}
