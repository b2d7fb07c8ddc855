import * as assert from 'assert';
import type { BlameRange, LineOrigin } from '../../../src/blame/tapeBlame';
import { blameTurns } from '../../../src/extension/blame/blameTurns';

const origin = (sessionId: string, turn: number | null, entryId: number): LineOrigin => ({
  sessionId,
  entryId,
  agent: 'codex',
  model: null,
  turn,
  prompt: `prompt of ${sessionId} ${turn}`,
  at: '2026-12-06T15:00:00.000Z',
  sessionTitle: null,
  requestEntryId: null,
});

describe('Blame File: the turns that wrote a file', () => {
  it('one per session turn, whichever of its edits wrote the lines; edits outside a turn stand alone; in file order', () => {
    const ranges: BlameRange[] = [
      { startLine: 1, endLine: 1, origin: null },
      { startLine: 2, endLine: 4, origin: origin('b', 2, 30) },
      { startLine: 5, endLine: 5, origin: origin('a', 1, 7) },
      { startLine: 6, endLine: 7, origin: origin('b', 2, 31) },
      { startLine: 8, endLine: 8, origin: origin('a', 2, 9) },
      { startLine: 9, endLine: 9, origin: origin('c', null, 4) },
      { startLine: 10, endLine: 10, origin: origin('c', null, 5) },
      // The same turn number in another session is another turn.
      { startLine: 11, endLine: 11, origin: origin('a', 1, 8) },
    ];
    assert.deepStrictEqual(
      blameTurns(ranges).map((t) => [t.origin.sessionId, t.origin.turn, t.origin.entryId, t.lines, t.first.startLine]),
      [
        ['b', 2, 30, 5, 2],
        ['a', 1, 7, 2, 5],
        ['a', 2, 9, 1, 8],
        ['c', null, 4, 1, 9],
        ['c', null, 5, 1, 10],
      ],
    );
    assert.deepStrictEqual(blameTurns([{ startLine: 1, endLine: 3, origin: null }]), []);
  });
});
