import * as z from 'zod';
import { looksBinary } from '../workspace/binary';
import { MAX_FILE_READ_BYTES, type Tool } from './tool';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root.'),
  startLine: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
  endLine: z.number().int().min(1).optional().describe('Last line to return, inclusive (default: the last line).'),
});

const CAP_MIB = MAX_FILE_READ_BYTES / (1024 * 1024);

export const readFileTool: Tool<typeof input> = {
  name: 'read_file',
  effect: 'read',
  description: `Read a text file in the workspace, optionally only lines startLine..endLine (1-based, inclusive). Only the first ${CAP_MIB} MiB of a file can be read.`,
  inputSchema: input,
  async run({ path, startLine, endLine }, ctx) {
    const { bytes, size } = await ctx.workspace.readFile(path, MAX_FILE_READ_BYTES);
    if (looksBinary(bytes)) return { status: 'error', output: `${path} is a binary file (${size} bytes); read_file reads text only` };
    const cut = bytes.length < size;
    let text = Buffer.from(bytes).toString('utf8');
    // The last line of a cut file is partial (and may end inside a character), so it is left out.
    const lastBreak = text.lastIndexOf('\n');
    if (cut && lastBreak >= 0) text = text.slice(0, lastBreak + 1);
    if (startLine === undefined && endLine === undefined) return { status: 'ok', output: text, ...(cut ? { truncated: true } : {}) };
    const lines = text.split(/(?<=\n)/);
    const first = startLine ?? 1;
    const last = Math.min(endLine ?? lines.length, lines.length);
    const beyond = `read_file reads the first ${CAP_MIB} MiB of ${path} (${size} bytes), which hold ${lines.length} lines`;
    if (first > lines.length)
      return {
        status: 'error',
        output: cut ? `${beyond}; startLine ${first} is past them` : `${path} has ${lines.length} lines; startLine ${first} is past the end`,
      };
    if (last < first) return { status: 'error', output: `endLine ${last} is before startLine ${first}` };
    const reachedCut = cut && last === lines.length;
    return {
      status: 'ok',
      output: lines.slice(first - 1, last).join('') + (reachedCut ? `\n[${beyond}; the rest cannot be read]` : ''),
      ...(reachedCut ? { truncated: true } : {}),
    };
  },
};
