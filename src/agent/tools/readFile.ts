import * as z from 'zod';
import { looksBinary } from '../workspace/binary';
import type { Tool } from './tool';

const input = z.object({
  path: z.string().min(1).describe('File path, relative to the workspace root.'),
  startLine: z.number().int().min(1).optional().describe('First line to return, 1-based (default 1).'),
  endLine: z.number().int().min(1).optional().describe('Last line to return, inclusive (default: the last line).'),
});

export const readFileTool: Tool<typeof input> = {
  name: 'read_file',
  description: 'Read a text file in the workspace, optionally only lines startLine..endLine (1-based, inclusive).',
  inputSchema: input,
  async run({ path, startLine, endLine }, ctx) {
    const bytes = await ctx.workspace.readFile(path);
    if (looksBinary(bytes)) return { status: 'error', output: `${path} is a binary file (${bytes.length} bytes); read_file reads text only` };
    const text = Buffer.from(bytes).toString('utf8');
    if (startLine === undefined && endLine === undefined) return { status: 'ok', output: text };
    const lines = text.split(/(?<=\n)/);
    const first = startLine ?? 1;
    const last = Math.min(endLine ?? lines.length, lines.length);
    if (first > lines.length) return { status: 'error', output: `${path} has ${lines.length} lines; startLine ${first} is past the end` };
    if (last < first) return { status: 'error', output: `endLine ${last} is before startLine ${first}` };
    return { status: 'ok', output: lines.slice(first - 1, last).join('') };
  },
};
