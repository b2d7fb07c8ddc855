import { OpenTape } from '../../../../src/agent/session/openTape';
import { TAPE_TOOLS } from '../../../../src/agent/tools/tapeTools';
import { invokeTool, ToolRegistry, type ToolContext, type ToolResult } from '../../../../src/agent/tools/tool';
import { NodeWorkspace } from '../../../../src/agent/workspace/nodeWorkspace';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { NewEntry } from '../../../../src/tape/entry';

export const user = (messageId: string, orderSeq: number, content: string): NewEntry => ({
  kind: 'message',
  name: 'message/user',
  payload: { messageId, role: 'user', status: 'sent', orderSeq, content },
});

export const assistant = (messageId: string, orderSeq: number, content: string): NewEntry => ({
  kind: 'message',
  name: 'message/assistant',
  payload: { messageId, role: 'assistant', status: 'sent', orderSeq, content },
});

export const call = (messageId: string, toolCallId: string, name: string, input: Record<string, unknown>): NewEntry => ({
  kind: 'tool_call',
  name,
  payload: { messageId, toolCallId, name, input },
});

export const result = (messageId: string, toolCallId: string, name: string, output: string): NewEntry => ({
  kind: 'tool_result',
  name,
  payload: { messageId, toolCallId, status: 'ok', output },
});

/**
 * Session s1 (entries 1-7): session/start, the system prompt, a question about the database, an
 * answer that reads db.ts and its result, then a closing answer. Session s2 talks about the
 * database too, so a search that leaks across sessions shows.
 */
export async function demoStore(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  await store.appendMany('s1', [
    { kind: 'system', name: 'system/prompt', payload: { content: 'You are a coding agent.' } },
    user('u1', 1, 'Fix the database connection timeout'),
    assistant('a1', 2, 'Reading the config first.'),
    call('a1', 't1', 'read_file', { path: 'src/db.ts' }),
    result('a1', 't1', 'read_file', 'export const timeoutMs = 10;'),
    assistant('a2', 3, 'The timeout is 10 ms; raising it to 5000.'),
  ]);
  await store.appendMany('s2', [user('v1', 1, 'Another database question'), assistant('b1', 2, 'database answer')]);
  return store;
}

const registry = new ToolRegistry(TAPE_TOOLS);

/** Calls a tape tool the way the loop does: through the registry, with the session's tape port. */
export function callTool(store: TapeStore | null, name: string, input: unknown, sessionId = 's1'): Promise<ToolResult> {
  const ctx: ToolContext = {
    workspace: new NodeWorkspace(process.cwd()),
    permissions: { edits: false, commands: false },
    ...(store === null ? {} : { tape: new OpenTape(store).session(sessionId).tapePort() }),
  };
  return invokeTool(registry, name, input, ctx);
}
