import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { loadSqlJs } from '../../../../src/store/sqljs';
import { TapeStore } from '../../../../src/store/tapeStore';
import { editsOfEntry } from '../../../../src/tape/blame/editCalls';
import type { FileEdit } from '../../../../src/tape/blame/fileChange';
import { CLINE_ID, ROO_ID, writeRooXmlTask, writeTask } from '../../ingest/clineFixtures';
import { agentRequest, sessionJson, VSC_SESSION, WORKSPACE, workspaceStorage } from '../../ingest/vscodeChatFixtures';

/**
 * Edit calls as our ingest puts them on the tape, read back from it: the calls the real agents made
 * in their recorded sessions (test/fixtures/agents, recorded by scripts/record-agents), and for the
 * agents without a recording, the sessions the ingest tests write.
 */
const AGENTS = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'agents');

/** Every edit of every session the source became, with the tool that made it; the agent is the session id's format. */
async function editsOf(...source: string[]): Promise<{ tool: string; edits: FileEdit[] }[]> {
  const store = await TapeStore.inMemory();
  const report = await ingestFile(store, path.isAbsolute(source[0]) ? path.join(...source) : path.join(AGENTS, ...source));
  return report.sessions.flatMap((s) =>
    store.entries(s).flatMap((e) => {
      const edits = editsOfEntry(s.slice(0, s.indexOf(':')), e);
      return edits.length === 0 ? [] : [{ tool: e.name, edits }];
    }),
  );
}
const replace = (oldText: string, newText: string) => ({ kind: 'replace', oldText, newText, all: false });

describe('edit calls as ingested', () => {
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

  it("VS Code chat (no recording: the ingest tests' session file): Copilot's replace_string_in_file call and VS Code's text edit of it", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-edit-calls-'));
    try {
      const folder = path.join(workspaceStorage(dir), 'chatSessions');
      const file = path.join(folder, `${VSC_SESSION}.json`);
      fs.writeFileSync(file, JSON.stringify(sessionJson([agentRequest()])));
      const main = `${WORKSPACE}/src/main.ts`;
      assert.deepStrictEqual(await editsOf(file), [
        // The response's parts (its text edits among them) come before the round's calls on the tape.
        { tool: 'vscode-chat/edit', edits: [{ path: main, changes: [{ kind: 'written', newText: 'fixed' }] }] },
        { tool: 'replace_string_in_file', edits: [{ path: main, changes: [replace('bug', 'fixed')] }] },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('the Cline family (no recording: tasks written as the ingest tests write them)', () => {
    let dir: string;
    beforeEach(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-edit-calls-'));
    });
    afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
    const diff = '<<<<<<< SEARCH\n:start_line:1\n-------\nexport {}\n=======\nexport const a = 1;\n>>>>>>> REPLACE';
    const task = (text: string | null, toolUse?: object): object[] => [
      { role: 'user', content: [{ type: 'text', text: '<task>\nEdit a.ts\n</task>' }], ts: 1 },
      { role: 'assistant', content: [...(text === null ? [] : [{ type: 'text', text }]), ...(toolUse ? [toolUse] : [])], ts: 2 },
    ];

    it("Roo Code's XML calls: write_to_file (its content holding a tag) and apply_diff", async () => {
      assert.deepStrictEqual(await editsOf(path.join(writeRooXmlTask(dir), 'api_conversation_history.json')), [
        { tool: 'write_to_file', edits: [{ path: 'c.ts', changes: [{ kind: 'write', content: 'export const c = "<content>";' }] }] },
      ]);
      const folder = writeTask(dir, ROO_ID, 'roo-diff', { api: task(`Editing.\n\n<apply_diff>\n<path>a.ts</path>\n<diff>\n${diff}\n</diff>\n</apply_diff>`) });
      assert.deepStrictEqual(await editsOf(path.join(folder, 'api_conversation_history.json')), [
        { tool: 'apply_diff', edits: [{ path: 'a.ts', changes: [replace('export {}\n', 'export const a = 1;\n')] }] },
      ]);
    });

    it("Cline's native tool_use: replace_in_file", async () => {
      const input = {
        path: 'a.ts',
        diff: diff.replace('<<<<<<< SEARCH\n:start_line:1\n-------', '------- SEARCH').replace('>>>>>>> REPLACE', '+++++++ REPLACE'),
      };
      const folder = writeTask(dir, CLINE_ID, '1796539190820', { api: task(null, { type: 'tool_use', id: 'toolu_1', name: 'replace_in_file', input }) });
      assert.deepStrictEqual(await editsOf(path.join(folder, 'api_conversation_history.json')), [
        { tool: 'replace_in_file', edits: [{ path: 'a.ts', changes: [replace('export {}\n', 'export const a = 1;\n')] }] },
      ]);
    });
  });
});
