import * as assert from 'assert';
import { OpenTape } from '../../../../src/agent/session/openTape';
import type { TapeStore } from '../../../../src/store/tapeStore';
import { demoStore } from './fixture';

describe("SessionTapePort (the tape tools' port over a session handle)", () => {
  let store: TapeStore;
  beforeEach(async () => (store = await demoStore()));
  afterEach(() => store.close());

  it('window: entries in id order, each once, clamped to the session', () => {
    const tape = new OpenTape(store).session('s1').tapePort();
    assert.deepStrictEqual(
      tape.window([6, 2, 3], 0, 0).map((e) => e.entryId),
      [2, 3, 6],
    );
    assert.deepStrictEqual(
      tape.window([3, 4], 1, 1).map((e) => e.entryId),
      [2, 3, 4, 5],
    );
    assert.deepStrictEqual(
      tape.window([7], 0, 5).map((e) => e.entryId),
      [7],
    );
    assert.deepStrictEqual(
      tape.window([0, 8], 2, 2).map((e) => e.entryId),
      [],
    );
    assert.ok(tape.window([1], 0, 9).every((e) => e.sessionId === 's1'));
  });

  it('search and info see only the session it was made for', () => {
    const s2 = new OpenTape(store).session('s2').tapePort();
    assert.deepStrictEqual(
      s2
        .search('database', { limit: 10 })
        .map((h) => h.entryId)
        .sort(),
      [2, 3],
    );
    assert.deepStrictEqual(s2.info(), {
      sessionId: 's2',
      headEntryId: 3,
      entriesByKind: { anchor: 1, message: 2 },
      anchorCount: 1,
      title: 'Another database question',
    });
  });

  it('info and anchors follow appends made after the port was created', async () => {
    const tape = new OpenTape(store).session('s1').tapePort();
    assert.deepStrictEqual(tape.anchors(), [{ entryId: 1, name: 'session/start', inForce: false }]);
    const anchor = await tape.handoff('h1', 'summary');
    assert.strictEqual(anchor.entryId, 8);
    await store.append('s1', { kind: 'event', name: 'session/title', payload: { name: 'session/title', data: { title: 'Timeout fix' } } });
    assert.deepStrictEqual(tape.anchors(), [
      { entryId: 1, name: 'session/start', inForce: false },
      { entryId: 8, name: 'handoff/h1', inForce: true },
    ]);
    const info = tape.info();
    assert.deepStrictEqual([info.headEntryId, info.anchorCount, info.entriesByKind.event, info.title], [9, 2, 1, 'Timeout fix']);
  });
});
