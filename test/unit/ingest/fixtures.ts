import * as fs from 'fs';
import * as path from 'path';

/** Source transcripts the ingest tests build: every case the issue names, in each format. */

export const CC_SESSION = '5b0c1d2e-0000-4000-8000-000000000001';
const t = (i: number): string => new Date(Date.UTC(2026, 0, 2, 3, 4, i)).toISOString();
const usage = (input: number, output: number, cacheRead: number, cacheCreation: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_input_tokens: cacheRead,
  cache_creation_input_tokens: cacheCreation,
});
const base = (uuid: string, i: number, extra: object = {}) => ({
  cwd: '/w',
  uuid,
  parentUuid: null,
  sessionId: CC_SESSION,
  timestamp: t(i),
  isSidechain: false,
  ...extra,
});
export const ccUser = (uuid: string, i: number, content: unknown, extra: object = {}) => ({
  type: 'user',
  ...base(uuid, i, extra),
  message: { role: 'user', content },
});
const assistant = (uuid: string, i: number, id: string, block: object, u: object) => ({
  type: 'assistant',
  ...base(uuid, i),
  message: { id, role: 'assistant', model: 'claude-sonnet-4-5', content: [block], usage: u },
});

/** A Claude Code session: a message split per block, parallel calls, an error, a Task subagent, a compaction. */
export function claudeCodeRecords(): object[] {
  const u1 = usage(100, 20, 50, 10);
  return [
    { type: 'file-history-snapshot', messageId: 'u1', snapshot: {} },
    ccUser('u1', 1, 'Fix the failing test'),
    assistant('a1', 2, 'msg_1', { type: 'thinking', thinking: 'Look at the test first.', signature: 'sig' }, usage(100, 2, 50, 10)),
    assistant('a2', 3, 'msg_1', { type: 'text', text: "I'll look at the tests." }, u1),
    assistant('a3', 4, 'msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/w/a.test.ts' } }, u1),
    assistant('a4', 5, 'msg_1', { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'npm test' } }, u1),
    ccUser('u2', 6, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'test body' }]),
    ccUser('u3', 7, [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'exit 1' }], is_error: true }]),
    assistant('a5', 8, 'msg_2', { type: 'tool_use', id: 'toolu_3', name: 'Task', input: { prompt: 'Investigate' } }, usage(200, 30, 300, 0)),
    { type: 'progress', ...base('p1', 9), data: { type: 'agent_progress', agentId: 'abc' }, parentToolUseID: 'toolu_3', toolUseID: 'agent_msg_1' },
    ccUser('u4', 10, [{ type: 'tool_result', tool_use_id: 'toolu_3', content: [{ type: 'text', text: 'Subagent done' }] }], {
      toolUseResult: { agentId: 'abc' },
    }),
    assistant('a6', 11, 'msg_3', { type: 'text', text: 'Fixed.' }, usage(10, 3, 400, 5)),
    {
      type: 'system',
      ...base('b1', 12),
      subtype: 'compact_boundary',
      content: 'Conversation compacted',
      compactMetadata: { trigger: 'manual', preTokens: 1000 },
    },
    ccUser('s1', 13, 'Summary: the test is fixed.', { isCompactSummary: true }),
    ccUser('u5', 14, 'Now add docs'),
    { type: 'mystery', ...base('m1', 15) },
    { type: 'system', ...base('h1', 16), subtype: 'stop_hook_summary', hookCount: 1 },
    assistant('a7', 17, 'msg_4', { type: 'text', text: 'Done with docs.' }, usage(5, 7, 0, 0)),
  ];
}

export function claudeCodeSubagent(): object[] {
  const extra = { isSidechain: true, agentId: 'abc' };
  return [ccUser('x1', 20, 'Investigate', extra), { ...assistant('x2', 21, 'msg_s1', { type: 'text', text: 'Found it.' }, usage(1, 2, 3, 0)), ...extra }];
}

export const CODEX_SESSION = '019a0000-1111-7222-8333-444455556666';
const c = (i: number, type: string, payload: object) => ({ timestamp: t(i), type, payload });
const tokens = (i: number, input: number, cached: number, output: number) =>
  c(i, 'event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: { input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: 0, total_tokens: input + output },
    },
  });

/** A Codex rollout: parallel calls (one failing), reasoning, usage, a compaction, a custom tool, a web search. */
export function codexRecords(): object[] {
  return [
    c(0, 'session_meta', { id: CODEX_SESSION, cwd: '/w', cli_version: '0.50.0' }),
    c(1, 'turn_context', { model: 'gpt-5-codex', cwd: '/w' }),
    c(2, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List files' }] }),
    c(3, 'event_msg', { type: 'user_message', message: 'List files' }),
    c(4, 'response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Run ls.' }] }),
    c(5, 'response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_1' }),
    c(6, 'response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["false"]}', call_id: 'call_2' }),
    c(7, 'response_item', { type: 'function_call_output', call_id: 'call_1', output: '{"output":"a\\nb","metadata":{"exit_code":0}}' }),
    c(8, 'response_item', { type: 'function_call_output', call_id: 'call_2', output: 'Exit code: 1\nWall time: 0.1 seconds\nOutput:\n' }),
    tokens(9, 1000, 800, 50),
    c(10, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Two files: a and b.' }] }),
    c(11, 'event_msg', { type: 'agent_message', message: 'Two files: a and b.' }),
    c(12, 'event_msg', { type: 'token_count', info: null, rate_limits: {} }),
    c(13, 'compacted', { message: 'Summary: listed the files.' }),
    c(14, 'response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch', call_id: 'call_3', status: 'completed' }),
    c(15, 'response_item', { type: 'custom_tool_call_output', call_id: 'call_3', output: '{"output":"Done","metadata":{"exit_code":0}}' }),
    c(16, 'response_item', { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'tape' } }),
    c(17, 'weird', {}),
    tokens(18, 500, 100, 20),
    c(19, 'response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'thanks' }] }),
  ];
}

export const jsonl = (records: readonly object[]): string => records.map((r) => `${JSON.stringify(r)}\n`).join('');

/** Writes a Claude Code session (and its subagent) as `~/.claude/projects/<p>/` lays them out. */
export function writeClaudeCode(dir: string, records = claudeCodeRecords()): string {
  const file = path.join(dir, `${CC_SESSION}.jsonl`);
  fs.writeFileSync(file, jsonl(records));
  const sub = path.join(dir, CC_SESSION, 'subagents');
  fs.mkdirSync(sub, { recursive: true });
  fs.writeFileSync(path.join(sub, 'agent-abc.jsonl'), jsonl(claudeCodeSubagent()));
  return file;
}

export function writeCodex(dir: string, records = codexRecords()): string {
  const day = path.join(dir, '2026', '01', '02');
  fs.mkdirSync(day, { recursive: true });
  const file = path.join(day, `rollout-2026-01-02T03-04-00-${CODEX_SESSION}.jsonl`);
  fs.writeFileSync(file, jsonl(records));
  return file;
}
