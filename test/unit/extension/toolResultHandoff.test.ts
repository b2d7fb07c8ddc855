import * as assert from 'assert';
import { callKey, ToolResultHandoff } from '../../../src/extension/tools/toolResultHandoff';

const ok = (output: string) => ({ status: 'ok' as const, output });

describe('ToolResultHandoff', () => {
  it('identifies a call by name and input, whatever the key order or undefined fields', () => {
    assert.strictEqual(
      callKey('apply_edit', { path: 'a', newText: 'x', nested: { b: 1, a: [2, { d: 1, c: 0 }] } }),
      callKey('apply_edit', { nested: { a: [2, { c: 0, d: 1 }], b: 1 }, newText: 'x', oldText: undefined, path: 'a' }),
    );
    assert.notStrictEqual(callKey('apply_edit', { path: 'a' }), callKey('read_file', { path: 'a' }));
    assert.notStrictEqual(callKey('apply_edit', { path: 'a' }), callKey('apply_edit', { path: 'b' }));
    assert.notStrictEqual(callKey('apply_edit', { path: 'a', lines: [1, 2] }), callKey('apply_edit', { path: 'a', lines: [2, 1] }));
    assert.notStrictEqual(callKey('apply_edit', { path: 'a', oldText: null }), callKey('apply_edit', { path: 'a' }));
  });

  it('gives each waiting call the result reported for its own input', () => {
    const handoff = new ToolResultHandoff();
    const a = handoff.expect('run_command', { command: 'a' });
    const b = handoff.expect('run_command', { command: 'b' });
    handoff.report('run_command', { command: 'b' }, ok('B'));
    handoff.report('run_command', { command: 'a' }, ok('A'));
    assert.deepStrictEqual([a.take(), b.take()], [ok('A'), ok('B')]);
  });

  it('says nothing ran when nothing was reported (a skipped confirmation), and drops results nobody waits for', () => {
    const handoff = new ToolResultHandoff();
    handoff.report('apply_edit', { path: 'a' }, ok('from another caller'));
    const slot = handoff.expect('apply_edit', { path: 'a' });
    assert.strictEqual(slot.take(), undefined);
    handoff.report('apply_edit', { path: 'a' }, ok('late'));
    assert.strictEqual(handoff.expect('apply_edit', { path: 'a' }).take(), undefined, 'a closed slot keeps nothing');
  });

  it('serves identical calls in flight in order', () => {
    const handoff = new ToolResultHandoff();
    const first = handoff.expect('apply_edit', { path: 'a' });
    const second = handoff.expect('apply_edit', { path: 'a' });
    handoff.report('apply_edit', { path: 'a' }, ok('1'));
    handoff.report('apply_edit', { path: 'a' }, ok('2'));
    assert.deepStrictEqual([second.take(), first.take()], [ok('2'), ok('1')]);
  });
});
