import * as assert from 'assert';
import { anchorItems } from '../../../src/inspector/anchorsTimeline';
import { anchorItem, MAX_MISSING_FACTS } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { anchor, fixtureStore, message, toolCall, toolResult } from './helpers';

describe('inspector anchors timeline', () => {
  it('lists every anchor; the last reconstruction anchor is in force and only those have a checkpoint', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('m1', 'user', 1, 'hi'),
      anchor('compaction/manual', { summary: 'Said hi.', cursorOrderSeq: 1 }),
      anchor('handoff/next', { summary: 'Continue with tests.', state: { files: ['a.ts'] } }),
      anchor('memory/note', { text: 'not a checkpoint' }),
    ]);
    const items = anchorItems(store, 's');
    for (const i of items) anchorItem.parse(i);
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.name, i.inForce]),
      [
        [1, 'session/start', false],
        [3, 'compaction/manual', false],
        [4, 'handoff/next', true],
        [5, 'memory/note', false],
      ],
    );
    assert.deepStrictEqual(
      items.map((i) => i.checkpoint),
      [
        null,
        '[Checkpoint compaction/manual at entry 3: the conversation before this point is summarised here.]\n\nSaid hi.',
        '[Checkpoint handoff/next at entry 4: the conversation before this point is summarised here.]\n\nContinue with tests.\n\nState:\nstate:\n  files:\n    - a.ts',
        null,
      ],
    );
    assert.strictEqual(items[2].state, JSON.stringify({ summary: 'Continue with tests.', state: { files: ['a.ts'] } }, null, 2));
  });

  it('the sample tape: its handoff is in force', async () => {
    const store = await fixtureStore();
    const items = anchorItems(store, 'inspector-sample');
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.name, i.inForce]),
      [
        [1, 'session/start', false],
        [14, 'handoff/notes-read', true],
      ],
    );
    assert.strictEqual(
      items[1].checkpoint,
      '[Checkpoint handoff/notes-read at entry 14: the conversation before this point is summarised here.]\n\nThe user asked about notes.md; it says to build with esbuild.',
    );
  });

  it('a compaction anchor carries its audit: the totals of what its summary kept, and what it left out with the entries', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('u1', 'user', 1, 'Fix the parser\nit fails on empty input'),
      message('a1', 'assistant', 2, 'Reading.'),
      toolCall('a1', 'c1', 'read_file', { path: 'src/parser.ts' }),
      toolResult('a1', 'c1', 'read_file', 'ok', 'export function parse() {}'),
      toolCall('a1', 'c2', 'run_command', { command: 'npm test -- --grep parser' }),
      toolResult('a1', 'c2', 'run_command', 'error', 'TypeError: <img src=x onerror=alert(1)> is not a function\n  at lib/tokens.ts'),
      anchor('compaction/auto', { summary: 'The user asked to fix the parser; read parser.ts with read_file.', cursorOrderSeq: 2 }),
      message('u2', 'user', 3, 'Now the lexer'),
      anchor('handoff/next', { summary: 'Continue.' }),
    ]);
    const items = anchorItems(store, 's');
    for (const i of items) anchorItem.parse(i);
    assert.deepStrictEqual(
      items.map((i) => [i.name, i.audit === null]),
      [
        ['session/start', true],
        ['compaction/auto', false],
        ['handoff/next', true],
      ],
    );
    const audit = items[1].audit;
    assert.ok(audit !== null);
    assert.deepStrictEqual(audit.range, { from: 2, to: 7 });
    assert.deepStrictEqual(audit.totals, {
      path: { facts: 2, inSummary: 1 },
      command: { facts: 1, inSummary: 0 },
      error: { facts: 1, inSummary: 0 },
      request: { facts: 1, inSummary: 1 },
      tool: { facts: 2, inSummary: 1 },
    });
    assert.deepStrictEqual(audit.missing, [
      { kind: 'tool', value: 'run_command', entryIds: [6] },
      { kind: 'command', value: 'npm test -- --grep parser', entryIds: [6] },
      { kind: 'path', value: 'lib/tokens.ts', entryIds: [7] },
      { kind: 'error', value: 'TypeError: <img src=x onerror=alert(1)> is not a function', entryIds: [7] },
    ]);
    assert.strictEqual(audit.missingOmitted, 0);
  });

  it('lists at most MAX_MISSING_FACTS missing facts and counts the rest; a session without compactions has no audit', async () => {
    const store = await TapeStore.inMemory();
    const calls = Array.from({ length: MAX_MISSING_FACTS + 5 }, (_, i) => toolCall('a1', `c${i}`, `tool_${i}`, {}));
    await store.appendMany('s', [
      message('u1', 'user', 1, 'go'),
      message('a1', 'assistant', 2, 'ok'),
      ...calls,
      anchor('compaction/manual', { summary: 'go', cursorOrderSeq: 2 }),
    ]);
    const audit = anchorItems(store, 's')[1].audit;
    assert.ok(audit !== null);
    assert.deepStrictEqual(audit.totals.tool, { facts: MAX_MISSING_FACTS + 5, inSummary: 0 });
    assert.strictEqual(audit.missing.length, MAX_MISSING_FACTS);
    assert.strictEqual(audit.missingOmitted, 5);

    const plain = await TapeStore.inMemory();
    await plain.appendMany('p', [message('u1', 'user', 1, 'hi'), anchor('handoff/next', { summary: 'hi' })]);
    assert.deepStrictEqual(
      anchorItems(plain, 'p').map((i) => i.audit),
      [null, null],
    );
  });
});
