import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { AppendEvent } from '../../../src/store/tapeStore';
import { TapeStore } from '../../../src/store/tapeStore';
import { message, tempDir, until } from './helpers';

/** Long enough for any open transaction to commit (AppendTransaction commits within 5 ms). */
const settled = (): Promise<void> => new Promise((r) => setTimeout(r, 20));

describe('change notifications (onDidAppend)', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('fires once per committed transaction with its session and entry range, after the rows are readable', async () => {
    const store = await TapeStore.open(path.join(dir, 'e.tape.sqlite'));
    const events: AppendEvent[] = [];
    const readable: boolean[] = [];
    const sub = store.onDidAppend((e) => {
      events.push(e);
      readable.push(store.getEntry(e.sessionId, e.lastEntryId) !== undefined);
    });
    await store.append('a', message('m1', 'one', { key: 'k1' })); // with its bootstrap: entries 1-2
    await Promise.all([store.appendMany('b', [message('x', 'x'), message('y', 'y')]), store.append('a', message('m2', 'two'))]);
    await store.append('a', message('m1', 'again', { key: 'k1' })); // deduplicated: nothing committed
    await assert.rejects(store.append('a', { kind: 'nope' } as never));
    await until(() => events.length >= 3, 'three commits');
    await settled();
    assert.deepStrictEqual(events, [
      { sessionId: 'a', firstEntryId: 1, lastEntryId: 2 },
      { sessionId: 'b', firstEntryId: 1, lastEntryId: 3 },
      { sessionId: 'a', firstEntryId: 3, lastEntryId: 3 },
    ]);
    assert.deepStrictEqual(readable, [true, true, true], 'each listener can read its rows');
    sub.dispose();
    await store.append('a', message('m3', 'three'));
    await settled();
    assert.strictEqual(events.length, 3, 'a disposed listener hears nothing');
    await store.close();
  });

  it('a listener that throws does not stop the others nor fail the append', async () => {
    const errors: unknown[] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => errors.push(args);
    const store = await TapeStore.inMemory();
    const heard: string[] = [];
    try {
      store.onDidAppend(() => {
        throw new Error('listener bug');
      });
      store.onDidAppend((e) => heard.push(e.sessionId));
      await store.append('s', message('m1', 'one'));
      await until(() => heard.length > 0, 'the event');
    } finally {
      console.error = original;
    }
    assert.deepStrictEqual(heard, ['s']);
    assert.strictEqual(errors.length, 1);
    await store.close();
  });
});

describe('the append rule: session/start', () => {
  it('is written once per session, whatever provenance key a later one carries', async () => {
    const store = await TapeStore.inMemory();
    const start = (key: string | null) => ({
      kind: 'anchor' as const,
      name: 'session/start',
      provenanceKey: key,
      payload: { name: 'session/start', state: { by: key } },
    });
    await store.append('s', message('m1', 'hello'));
    for (const key of ['other-key', null]) {
      const again = await store.append('s', start(key));
      assert.deepStrictEqual([again.deduplicated, again.entry.entryId], [true, 1]);
    }
    const both = await store.appendMany('t', [start('a'), message('m1', 'x'), start('b')]);
    assert.deepStrictEqual(
      both.map((r) => [r.entry.entryId, r.deduplicated]),
      [
        [1, false],
        [2, false],
        [1, true],
      ],
    );
    assert.strictEqual(both[0].entry.payload.state && (both[0].entry.payload.state as { by: string }).by, 'a', "the caller's own start is the bootstrap");
    assert.deepStrictEqual(
      ['s', 't'].map((s) => store.entries(s, { kind: 'anchor' }).length),
      [1, 1],
    );
    await store.close();
  });
});

describe('crash repair of interrupted tool calls', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'r.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const call = (messageId: string, toolCallId: string) => ({
    kind: 'tool_call' as const,
    name: 'run_command',
    payload: { messageId, toolCallId, name: 'run_command', input: { command: 'make' } },
  });
  const result = (messageId: string, toolCallId: string) => ({
    kind: 'tool_result' as const,
    name: 'run_command',
    payload: { messageId, toolCallId, status: 'ok', output: 'done' },
  });

  it('the next writable open appends one error result per unpaired effective call, once', async () => {
    let s = await TapeStore.open(file);
    await s.appendMany('s', [
      message('m1', 'build it', { role: 'user', orderSeq: 1 }),
      message('a1', 'building', { role: 'assistant', orderSeq: 2 }),
      call('a1', 'c1'),
      result('a1', 'c1'),
      call('a1', 'c2'),
    ]);
    // A retracted message's call is not in the context: it needs no result.
    await s.appendMany('s', [
      message('a2', 'more', { role: 'assistant', orderSeq: 3 }),
      call('a2', 'c3'),
      { kind: 'event', name: 'message/retracted', payload: { name: 'message/retracted', data: { messageId: 'a2' } } },
    ]);
    await s.close();
    const ro = await TapeStore.open(file, { readOnly: true });
    assert.strictEqual(ro.openReport.repairedToolCalls, 0, 'a read-only open writes nothing');
    const head = ro.headEntryId('s');
    await ro.close();

    s = await TapeStore.open(file);
    assert.strictEqual(s.openReport.repairedToolCalls, 1);
    const repaired = s.getEntry('s', head + 1);
    assert.strictEqual(repaired?.kind, 'tool_result');
    assert.deepStrictEqual(
      [repaired?.payload.toolCallId, repaired?.payload.status, repaired?.payload.output],
      ['c2', 'error', 'interrupted: no result was recorded'],
    );
    await s.close();
    s = await TapeStore.open(file);
    assert.strictEqual(s.openReport.repairedToolCalls, 0);
    assert.strictEqual(s.headEntryId('s'), head + 1);
    await s.close();
  });

  it('a session is looked at again when it grew since the last look, and after a crash that lost the marks', async () => {
    let s = await TapeStore.open(file);
    await s.appendMany('s', [message('a1', 'building', { role: 'assistant', orderSeq: 1 }), call('a1', 'c1')]);
    await s.appendMany('t', [message('b1', 'done', { role: 'assistant', orderSeq: 1 }), call('b1', 'd1'), result('b1', 'd1')]);
    await s.close();
    s = await TapeStore.open(file);
    assert.strictEqual(s.openReport.repairedToolCalls, 1);
    // After the look: a new unanswered call in a session that was looked at, appended as a crash would leave it.
    await s.appendMany('s', [message('a2', 'again', { role: 'assistant', orderSeq: 2 }), call('a2', 'c2')], { durable: true });
    const crashed = path.join(dir, 'crashed.tape.sqlite');
    fs.copyFileSync(file, crashed);
    fs.copyFileSync(`${file}.tapelog`, `${crashed}.tapelog`);
    await s.close();
    for (const f of [file, crashed]) {
      const again = await TapeStore.open(f);
      assert.strictEqual(again.openReport.repairedToolCalls, 1, f);
      assert.deepStrictEqual(
        again.entries('s', { kind: 'tool_result' }).map((e) => e.payload.toolCallId),
        ['c1', 'c2'],
      );
      assert.deepStrictEqual(
        again.entries('t', { kind: 'tool_result' }).map((e) => e.payload.toolCallId),
        ['d1'],
      );
      await again.close();
    }
  });
});
