import { VSCODE_CHAT_EDIT_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { EditIndex, type IndexedChange } from '../../../src/blame/editIndex';
import { fileHistory } from '../../../src/blame/fileHistory';
import { TapeStore } from '../../../src/store/tapeStore';
import { call, ingested, resultOf } from './blameTape';

const WS = '/home/me/project';
const own = { sessionId: 'own', turnId: 't1' };
const claude = { sessionId: 'claude-code:c1', turnId: 't' };
const codex = { sessionId: 'codex:x1', turnId: 't' };

const where = (changes: readonly IndexedChange[]) => changes.map((c) => `${c.ref.sessionId}#${c.ref.entryId}`);

describe("EditIndex: the tape's edits by workspace file", () => {
  let store: TapeStore;
  let index: EditIndex;
  beforeEach(async () => {
    store = await TapeStore.inMemory();
    index = new EditIndex(store, WS);
  });
  afterEach(() => store.close());

  it('keeps only calls whose result says ok: an error result or none changed nothing we can trust', async () => {
    await store.appendMany(own.sessionId, [
      ...call(own, 'apply_edit', { path: 'src/a.ts', newText: 'a\n' }),
      ...call(own, 'apply_edit', { path: 'src/b.ts', newText: 'b\n' }, 'error'),
      ...call(own, 'apply_edit', { path: 'src/c.ts', newText: 'c\n' }, null),
      ...call(own, 'read_file', { path: 'src/d.ts' }),
    ]);
    assert.deepStrictEqual(index.paths(), ['src/a.ts']);
    assert.strictEqual(index.changesOf('src/a.ts')[0].kind, 'edit');
  });

  it("reads an ingested session's paths from the folder it ran in: another checkout blames this one, files elsewhere are left out", async () => {
    await store.appendMany(claude.sessionId, [
      ...ingested(claude.sessionId, 'claude-code', '/tmp/other-clone'),
      ...call(claude, 'Edit', { file_path: '/tmp/other-clone/src/a.ts', old_string: 'x', new_string: 'y' }),
      ...call(claude, 'Edit', { file_path: '/etc/hosts', old_string: 'x', new_string: 'y' }),
      ...call(claude, 'Write', { file_path: `${WS}/docs/notes.md`, content: 'n\n' }),
      ...call(claude, 'Write', { file_path: 'rel/x.txt', content: 'x\n' }),
    ]);
    assert.deepStrictEqual(index.paths().sort(), ['docs/notes.md', 'rel/x.txt', 'src/a.ts']);
  });

  it("takes VS Code chat's edit events as they come: no result to wait for", async () => {
    const chat = 'vscode-chat:v1';
    const edit = (uri: string) => ({
      kind: 'event' as const,
      name: VSCODE_CHAT_EDIT_EVENT,
      provenanceKey: `${chat}/edit/${uri}`,
      payload: { name: VSCODE_CHAT_EDIT_EVENT, data: { kind: 'textEditGroup', uri, edits: [[{ text: 'x\n', range: {} }]], done: true } },
    });
    await store.appendMany(chat, [...ingested(chat, 'vscode-chat', WS), edit(`file://${WS}/src/chat.ts`), edit('file:///elsewhere/y.ts')]);
    assert.deepStrictEqual(index.paths(), ['src/chat.ts']);
  });

  it('uses the cwd in force at the edit: a later session/meta moves only the edits after it', async () => {
    await store.appendMany(claude.sessionId, [
      ...ingested(claude.sessionId, 'claude-code', '/tmp/one'),
      ...call(claude, 'Edit', { file_path: '/tmp/one/a.txt', old_string: 'x', new_string: 'y' }),
      ...ingested(claude.sessionId, 'claude-code', `${WS}/sub`, 'model-y').slice(1),
      ...call(claude, 'Edit', { file_path: 'b.txt', old_string: 'x', new_string: 'y' }),
    ]);
    assert.deepStrictEqual(index.paths().sort(), ['a.txt', 'sub/b.txt']);
  });

  it("catches up on appends from each session's last read entry: a result arriving later, a new session", async () => {
    await store.appendMany(own.sessionId, call(own, 'apply_edit', { path: 'late.ts', newText: 'l\n' }, null));
    assert.deepStrictEqual(index.paths(), []);
    await resultOf(store, own, 'ok');
    assert.deepStrictEqual(index.paths(), ['late.ts']);
    await store.appendMany(claude.sessionId, [
      ...ingested(claude.sessionId, 'claude-code', WS),
      ...call(claude, 'Write', { file_path: `${WS}/late.ts`, content: 'm\n' }),
    ]);
    assert.deepStrictEqual(where(index.changesOf('late.ts')), ['own#2', `${claude.sessionId}#3`]);
  });

  it("continues a moved file's history under its new path, and deletes the old one at the move", async () => {
    const patch = (body: string) => `*** Begin Patch\n${body}\n*** End Patch\n`;
    await store.appendMany(codex.sessionId, [
      ...ingested(codex.sessionId, 'codex', '/tmp/clone'),
      ...call(codex, 'apply_patch', patch('*** Add File: old.txt\n+one\n+two')),
      ...call(codex, 'apply_patch', patch('*** Update File: old.txt\n*** Move to: new.txt\n@@\n one\n-two\n+TWO')),
      ...call(codex, 'apply_patch', patch('*** Update File: new.txt\n@@\n TWO\n+three')),
    ]);
    const none = async () => null;
    const moved = await fileHistory(store, index, 'new.txt', none);
    assert.deepStrictEqual(
      moved.map((e) => [e.change.kind, e.origin?.entryId]),
      [
        ['write', 3],
        ['replace', 5],
        ['replace', 7],
      ],
    );
    const old = await fileHistory(store, index, 'old.txt', none);
    assert.deepStrictEqual(
      old.map((e) => e.change.kind),
      ['write', 'replace', 'delete'],
    );
  });
});
