import * as assert from 'assert';
import { TempWorkspace } from './fixture';
import type { PermissionKind } from '../../../../src/agent/workspace/permissions';

describe('apply_edit', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace({ 'a.txt': 'alpha\nbeta\ngamma\n', 'twice.txt': 'x = 1\nx = 1\n' })));
  afterEach(() => ws.dispose());

  it('replaces the one occurrence of oldText', async () => {
    assert.deepStrictEqual(await ws.call('apply_edit', { path: 'a.txt', oldText: 'beta\n', newText: 'BETA\nbeta2\n' }), {
      status: 'ok',
      output: 'replaced 1 occurrence in a.txt',
    });
    assert.strictEqual(ws.read('a.txt'), 'alpha\nBETA\nbeta2\ngamma\n');
  });

  it('refuses 0 and 2 occurrences, saying how many, and writes nothing', async () => {
    const none = await ws.call('apply_edit', { path: 'a.txt', oldText: 'delta', newText: 'x' });
    assert.strictEqual(none.status, 'error');
    assert.match(none.output, /occurs 0 times in a\.txt/);
    const two = await ws.call('apply_edit', { path: 'twice.txt', oldText: 'x = 1', newText: 'x = 2' });
    assert.strictEqual(two.status, 'error');
    assert.match(two.output, /occurs 2 times in twice\.txt/);
    assert.strictEqual(ws.read('a.txt'), 'alpha\nbeta\ngamma\n');
    assert.strictEqual(ws.read('twice.txt'), 'x = 1\nx = 1\n');
  });

  it('without oldText creates (with parent directories) or overwrites', async () => {
    assert.deepStrictEqual(await ws.call('apply_edit', { path: 'new/dir/n.txt', newText: 'hello' }), { status: 'ok', output: 'created new/dir/n.txt' });
    assert.strictEqual(ws.read('new/dir/n.txt'), 'hello');
    assert.deepStrictEqual(await ws.call('apply_edit', { path: 'a.txt', newText: 'replaced' }), { status: 'ok', output: 'overwrote a.txt' });
    assert.strictEqual(ws.read('a.txt'), 'replaced');
  });

  it('with oldText on a missing file, or on a directory, is an error', async () => {
    const missing = await ws.call('apply_edit', { path: 'nope.txt', oldText: 'a', newText: 'b' });
    assert.strictEqual(missing.status, 'error');
    assert.match(missing.output, /does not exist/);
    assert.strictEqual(ws.exists('nope.txt'), false);
    ws.write('d/f.txt', '');
    const dir = await ws.call('apply_edit', { path: 'd', newText: 'b' });
    assert.strictEqual(dir.status, 'error');
    assert.match(dir.output, /d is a directory/);
  });

  it('without the edit permission writes nothing', async () => {
    const refused = await ws.call('apply_edit', { path: 'a.txt', oldText: 'beta', newText: 'B' }, ws.ctx({ edits: false, commands: true }));
    assert.strictEqual(refused.status, 'error');
    assert.match(refused.output, /permission to edit files was not granted/);
    const create = await ws.call('apply_edit', { path: 'c.txt', newText: 'c' }, ws.ctx({ edits: false, commands: true }));
    assert.strictEqual(create.status, 'error');
    assert.strictEqual(ws.read('a.txt'), 'alpha\nbeta\ngamma\n');
    assert.strictEqual(ws.exists('c.txt'), false);
  });

  it('asks the host through ask(kind, detail), once the edit is known to apply', async () => {
    const asked: [PermissionKind, string][] = [];
    const deny = { ask: async (kind: PermissionKind, detail: string) => (asked.push([kind, detail]), false) };
    assert.strictEqual((await ws.call('apply_edit', { path: 'a.txt', oldText: 'beta', newText: 'B' }, ws.ctx(deny))).status, 'error');
    assert.strictEqual((await ws.call('apply_edit', { path: 'a.txt', oldText: 'delta', newText: 'B' }, ws.ctx(deny))).status, 'error');
    assert.deepStrictEqual(asked, [['edit', 'a.txt']]);
    assert.strictEqual(ws.read('a.txt'), 'alpha\nbeta\ngamma\n');
    const allow = { ask: async () => true };
    assert.strictEqual((await ws.call('apply_edit', { path: 'a.txt', oldText: 'beta', newText: 'B' }, ws.ctx(allow))).status, 'ok');
    assert.strictEqual(ws.read('a.txt'), 'alpha\nB\ngamma\n');
  });
});
