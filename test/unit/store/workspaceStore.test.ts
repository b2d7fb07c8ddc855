import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { AppendEvent } from '../../../src/store/tapeStore';
import { WORKSPACE_TAPE, WorkspaceStore, type WorkspaceStoreState } from '../../../src/store/workspaceStore';
import { message, tempDir, until } from './helpers';

describe('the workspace store', () => {
  let dir: string;
  beforeEach(() => (dir = path.join(tempDir(), 'storage', 'ws')));
  afterEach(() => fs.rmSync(path.dirname(path.dirname(dir)), { recursive: true, force: true }));

  it('creates the storage directory and its tape, writable', async () => {
    const ws = await WorkspaceStore.open(dir);
    assert.deepStrictEqual(ws.state, { mode: 'writable' });
    assert.strictEqual(ws.file, path.join(dir, WORKSPACE_TAPE));
    await ws.store.append('s', message('m1', 'hello'));
    await ws.close();
    assert.ok(fs.existsSync(ws.file));
    assert.ok(!fs.existsSync(`${ws.file}.lock`), 'the lock is released on close');
  });

  it('falls back to read-only with the reason while another holds the lock, follows it, and becomes writable when it is released', async function () {
    this.timeout(10_000);
    const first = await WorkspaceStore.open(dir);
    await first.store.append('s', message('m1', 'from the first window'));
    const second = await WorkspaceStore.open(dir);
    assert.strictEqual(second.state.mode, 'readOnly');
    assert.match((second.state as { reason: string }).reason, new RegExp(`open for writing in another window or process \\(pid ${process.pid}\\)`));
    assert.ok(second.store.readOnly);
    await assert.rejects(second.store.append('s', message('x', 'refused')), /read-only/);

    const events: AppendEvent[] = [];
    const states: WorkspaceStoreState[] = [];
    second.onDidAppend((e) => events.push(e));
    second.onDidChangeState((s) => states.push(s));
    await first.store.append('s', message('m2', 'followed'));
    await until(() => events.length === 1, 'the followed append');
    assert.deepStrictEqual(events[0], { sessionId: 's', firstEntryId: 3, lastEntryId: 3 });

    await first.close();
    await until(() => states.length === 1, 'the switch to writable');
    assert.deepStrictEqual(second.state, { mode: 'writable' });
    assert.ok(!second.store.readOnly);
    const appended = await second.store.append('s', message('m3', 'now mine'));
    await until(() => events.some((e) => e.firstEntryId === 4), 'the event of the append through the new store');
    assert.strictEqual(appended.entry.entryId, 4);
    assert.deepStrictEqual(
      second.store.entries('s').map((e) => e.payload.content ?? e.name),
      ['session/start', 'from the first window', 'followed', 'now mine'],
    );
    assert.deepStrictEqual(events.at(-1), { sessionId: 's', firstEntryId: 4, lastEntryId: 4 }, 'appends are heard through the new store too');
    await second.close();
  });

  it('a read-only window whose lock is replaced by something that is not a lock reports it and stays read-only', async function () {
    if (process.platform === 'win32') this.skip();
    this.timeout(10_000);
    const first = await WorkspaceStore.open(dir);
    const errors: string[] = [];
    const second = await WorkspaceStore.open(dir, {}, (what, e) => errors.push(`${what}: ${e instanceof Error ? e.message : String(e)}`));
    assert.strictEqual(second.state.mode, 'readOnly');
    fs.rmSync(`${first.file}.lock`);
    fs.symlinkSync('/dev/zero', `${first.file}.lock`);
    await until(() => errors.length > 0, 'the report');
    assert.match(errors[0], /cannot tell whether .* is still open for writing: .*\.lock: is a character device, not a regular file/);
    assert.strictEqual(second.state.mode, 'readOnly');
    await second.close();
    fs.rmSync(`${first.file}.lock`);
    await first.close();
  });
});
