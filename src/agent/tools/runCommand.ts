import * as z from 'zod';
import { isPermitted } from '../workspace/permissions';
import { MAX_TOOL_OUTPUT_BYTES, type Tool } from './tool';

const DEFAULT_COMMAND_TIMEOUT_MS = 60_000;
const MAX_COMMAND_TIMEOUT_MS = 30 * 60_000;

const input = z.object({
  command: z.string().min(1).describe('Shell command line, run in the workspace root.'),
  timeoutMs: z.number().int().min(1).max(MAX_COMMAND_TIMEOUT_MS).optional().describe(`Kill the command after this many milliseconds (default ${DEFAULT_COMMAND_TIMEOUT_MS}).`),
});

export const runCommandTool: Tool<typeof input> = {
  name: 'run_command',
  description: 'Run a shell command in the workspace root; prints its exit code and its output (stdout and stderr together, capped). Needs the user\'s permission to run commands.',
  inputSchema: input,
  async run({ command, timeoutMs }, ctx) {
    if (!(await isPermitted(ctx.permissions, 'command', command))) return { status: 'error', output: 'permission to run commands was not granted; the command was not run' };
    const timeout = timeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    const result = await ctx.workspace.runCommand(command, { timeoutMs: timeout, maxOutputBytes: MAX_TOOL_OUTPUT_BYTES, signal: ctx.signal });
    const outcome = result.timedOut
      ? `killed after the ${timeout} ms timeout`
      : result.aborted
        ? 'killed: the turn was cancelled'
        : result.exitCode === null
          ? `killed by ${result.signal}`
          : `exit code ${result.exitCode}`;
    const ok = result.exitCode === 0 && !result.timedOut && !result.aborted;
    return { status: ok ? 'ok' : 'error', output: `${outcome}\n${result.output}`, ...(result.truncated ? { truncated: true } : {}) };
  },
};
