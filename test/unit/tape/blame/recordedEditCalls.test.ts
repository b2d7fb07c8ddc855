import * as assert from 'assert';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { loadSqlJs } from '../../../../src/store/sqljs';
import { TapeStore } from '../../../../src/store/tapeStore';
import { editsOfEntry } from '../../../../src/tape/blame/editCalls';
import type { FileEdit } from '../../../../src/tape/blame/fileChange';

/**
 * The edit calls the real agents made in their recorded sessions (test/fixtures/agents, recorded
 * by scripts/record-agents), ingested as the CLI does, read back from the tape.
 */
const AGENTS = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'agents');

/** Every edit of every session the source became, with the tool that made it; the agent is the session id's format. */
async function editsOf(...source: string[]): Promise<{ tool: string; edits: FileEdit[] }[]> {
  const store = await TapeStore.inMemory();
  const report = await ingestFile(store, path.join(AGENTS, ...source));
  return report.sessions.flatMap((s) =>
    store.entries(s).flatMap((e) => {
      const edits = editsOfEntry(s.slice(0, s.indexOf(':')), e);
      return edits.length === 0 ? [] : [{ tool: e.name, edits }];
    }),
  );
}
const replace = (oldText: string, newText: string) => ({ kind: 'replace', oldText, newText, all: false });

describe('edit calls of the recorded agents', () => {
  before(() => loadSqlJs());

  it('Claude Code 2.1.332: the Edit of session A (and none in session B, whose subagent only reads)', async () => {
    const project = ['claude-code-2.1.332', 'projects', '-tmp-rec-claude-code-Xe9TDk-proj'];
    assert.deepStrictEqual(await editsOf(...project, '0178c38d-62e2-4523-88a6-67671119ea0f.jsonl'), [
      { tool: 'Edit', edits: [{ path: '/tmp/rec-claude-code-Xe9TDk/proj/a.txt', changes: [replace('hello world', 'hello tape')] }] },
    ]);
    assert.deepStrictEqual(await editsOf(...project, 'ee49c820-f55a-49cf-8703-89043c90e97a.jsonl'), []);
  });

  it("Codex 0.169.1: the apply_patch custom tool call, its path relative to the session's folder", async () => {
    const day = ['codex-0.169.1', 'sessions', '2026', '12', '06'];
    assert.deepStrictEqual(await editsOf(...day, 'rollout-2026-12-06T12-30-21-01a24b55-7711-7eb2-b21a-71728fbd7a1f.jsonl'), [
      { tool: 'apply_patch', edits: [{ path: 'a.txt', changes: [replace('hello wrld\n', 'hello world\n')] }] },
    ]);
    // The parent and its subagent only run commands that are not patches.
    assert.deepStrictEqual(await editsOf(...day, 'rollout-2026-12-06T12-30-19-01a24b55-6c37-7b13-9908-0d6c962bf2f7.jsonl'), []);
  });

  it('Gemini CLI 0.61.0: the replace call', async () => {
    assert.deepStrictEqual(await editsOf('gemini-cli-0.61.0', 'chats', 'session-2026-12-06T12-37-1892e666.jsonl'), [
      { tool: 'replace', edits: [{ path: '/tmp/rec-gemini-hQJKCB/proj/a.txt', changes: [replace('hello', 'howdy')] }] },
    ]);
  });

  it('opencode 1.18.33: the edit call, among every session of its database', async () => {
    assert.deepStrictEqual(await editsOf('opencode-1.18.33', 'opencode.db'), [
      { tool: 'edit', edits: [{ path: '/tmp/rec-opencode-q06FB5/proj/a.txt', changes: [replace('hello', 'howdy')] }] },
    ]);
  });

  it('Copilot CLI 1.0.102: the edit call (the subagent only views)', async () => {
    assert.deepStrictEqual(await editsOf('copilot-cli-1.0.102', 'session-state', '0ee7ea89-96dd-43cb-a261-2396742a4cef', 'events.jsonl'), [
      { tool: 'edit', edits: [{ path: '/tmp/rec-copilot-MKnUZ5/proj/a.txt', changes: [replace('helo', 'hello')] }] },
    ]);
  });
});
