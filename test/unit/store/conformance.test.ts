import { RETRACTED_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { exportJsonl, importJsonl, openTapeFile } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { TapeValidationError, type NewEntry } from '../../../src/tape/entry';
import { foldAll, foldRowOf } from '../../../src/tape/fold';
import { FoldCache } from '../../../src/tape/foldCache';
import { fingerprint, journalRecords, message, tempDir } from './helpers';

describe('tape store conformance (SPEC 3)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = tempDir();
    file = path.join(dir, 'a.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('SPEC 3.1: entry ids per session are dense and strictly increasing; sessions are independent', async () => {
    const store = await TapeStore.open(file);
    for (let i = 0; i < 5; i++) {
      await store.append('a', message(`a${i}`, `a ${i}`));
      if (i % 2 === 0) await store.append('b', message(`b${i}`, `b ${i}`));
    }
    await store.appendMany('a', [message('x', 'x'), message('y', 'y')]);
    assert.deepStrictEqual(
      store.entries('a').map((e) => e.entryId),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    assert.deepStrictEqual(
      store.entries('b').map((e) => e.entryId),
      [1, 2, 3, 4],
    );
    assert.strictEqual(store.entries('a')[0].name, 'session/start', 'the bootstrap anchor comes first');
    await store.close();
    const again = await TapeStore.open(file);
    assert.strictEqual(again.headEntryId('a'), 8);
    assert.strictEqual((await again.append('a', message('z', 'z'))).entry.entryId, 9);
    await again.close();
  });

  it('an append that fails while writing leaves no trace, alone or sharing its tick with others', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m0', 'before'));
    // Make SQLite itself refuse one entry, after validation has passed.
    (store as unknown as { c: { db: { run(sql: string): void } } }).c.db.run(
      "CREATE TEMP TRIGGER refuse BEFORE INSERT ON entries WHEN NEW.message_id = 'bad' BEGIN SELECT RAISE(ABORT, 'refused by test'); END",
    );
    await assert.rejects(store.append('s', message('bad', 'alone')), /refused by test/); // first of its tick: the whole transaction rolls back
    const ok = store.append('s', message('m1', 'kept'));
    const bad = store.append('s', message('bad', 'second in the tick')); // rolls back to its savepoint only
    const ok2 = store.append('s', message('m2', 'kept too'));
    await assert.rejects(bad, /refused by test/);
    assert.deepStrictEqual([(await ok).entry.entryId, (await ok2).entry.entryId], [3, 4]);
    await store.close();
    const re = await TapeStore.open(file, { readOnly: true });
    assert.deepStrictEqual(
      re.entries('s').map((e) => e.payload.content ?? e.name),
      ['session/start', 'before', 'kept', 'kept too'],
    );
    await re.close();
  });

  it("an empty transaction writes nothing, not even a new session's bootstrap anchor", async () => {
    const store = await TapeStore.open(file);
    assert.deepStrictEqual(await store.appendMany('fresh', []), []);
    assert.strictEqual(store.headEntryId('fresh'), 0);
    assert.deepStrictEqual(store.sessions(), []);
    await store.close();
  });

  it('SPEC 3.2: idempotent append with an existing provenance key writes nothing and returns the stored entry', async () => {
    const store = await TapeStore.open(file);
    const first = await store.append('s', message('m1', 'final answer', { key: 'msg:m1:final' }));
    assert.strictEqual(first.deduplicated, false);
    const journalBefore = journalRecords(file, store.tapeId);
    assert.strictEqual(journalBefore.length, 1, 'the first append is one record (with its bootstrap anchor)');
    const again = await store.append('s', message('m1', 'a different text', { key: 'msg:m1:final' }));
    assert.strictEqual(again.deduplicated, true);
    assert.deepStrictEqual(again.entry, first.entry);
    assert.deepStrictEqual(journalRecords(file, store.tapeId), journalBefore, 'nothing reached the journal');
    assert.strictEqual(store.headEntryId('s'), 2);
    const inOneTxn = await store.appendMany('s', [message('m2', 'x', { key: 'k2' }), message('m2', 'y', { key: 'k2' })]);
    assert.deepStrictEqual(
      inOneTxn.map((r) => r.deduplicated),
      [false, true],
    );
    assert.strictEqual(inOneTxn[1].entry.entryId, inOneTxn[0].entry.entryId);
    await store.close();
    const reopened = await TapeStore.open(file);
    assert.strictEqual((await reopened.append('s', message('m1', 'z', { key: 'msg:m1:final' }))).deduplicated, true);
    assert.strictEqual(reopened.headEntryId('s'), 3);
    await reopened.close();
  });

  it('SPEC 3.3: an invalid entry is refused with a clear error and leaves the tape unchanged', async () => {
    const store = await TapeStore.open(file);
    await store.append('s', message('m1', 'hello'));
    await store.close();
    const before = [fingerprint(file), fingerprint(journalPathOf(file))];
    const again = await TapeStore.open(file);
    const recordsBefore = journalRecords(file, again.tapeId);
    const bad = { kind: 'message', name: 'message/user', payload: { messageId: 'm2', role: 'assistant', status: 'sent', orderSeq: 2, content: 'x' } };
    await assert.rejects(again.append('s', bad as never), (e: Error) => e instanceof TapeValidationError && /payload\.role must be "user"/.test(e.message));
    await assert.rejects(
      again.appendMany('s', [message('ok', 'fine'), { kind: 'nope' } as never]),
      (e: Error) => e instanceof TapeValidationError && /entry 1.*unknown kind "nope"/.test(e.message),
    );
    await assert.rejects(again.append('new-session', { kind: 'tool_call', name: 'read', payload: {} } as never), /messageId/);
    assert.strictEqual(again.headEntryId('s'), 2, 'the valid entry of the refused transaction did not land either');
    assert.strictEqual(again.headEntryId('new-session'), 0, 'not even the bootstrap anchor was written');
    assert.deepStrictEqual(journalRecords(file, again.tapeId), recordsBefore, 'nothing reached the journal');
    await again.close();
    // close() checkpoints only when there is something new: the files are byte-identical.
    assert.deepStrictEqual([fingerprint(file), fingerprint(journalPathOf(file))], before);
  });

  it('SPEC 3.10: after a compaction anchor every entry is still readable, also after reopen', async () => {
    const store = await TapeStore.open(file);
    for (let i = 1; i <= 6; i++) await store.append('s', message(`m${i}`, `turn ${i}`, { orderSeq: i }));
    await store.append('s', {
      kind: 'anchor',
      name: 'compaction/auto',
      payload: { name: 'compaction/auto', state: { summary: 'earlier turns', cursorOrderSeq: 6 } },
    });
    await store.append('s', message('m7', 'after compaction', { orderSeq: 7 }));
    await store.checkpoint();
    await store.close();
    const reopened = await TapeStore.open(file, { readOnly: true });
    const entries = reopened.entries('s');
    assert.deepStrictEqual(
      entries.map((e) => e.entryId),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    for (let i = 1; i <= 6; i++) assert.strictEqual(reopened.getEntry('s', i + 1)?.payload.content, `turn ${i}`);
    assert.strictEqual(reopened.search('turn').length, 6);
    await reopened.close();
  });

  describe('SPEC 3.18: a truncated or foreign file opened as a tape gets a clear error; nothing is overwritten', () => {
    async function refused(target: string, pattern: RegExp, readOnly = false): Promise<void> {
      const before = fingerprint(target);
      await assert.rejects(
        TapeStore.open(target, { readOnly }),
        (e: Error) => e instanceof TapeFileError && e.message.includes(target) && pattern.test(e.message),
      );
      assert.deepStrictEqual(fingerprint(target), before);
      assert.ok(!fs.existsSync(journalPathOf(target)), 'no journal was created');
      assert.ok(!fs.existsSync(`${target}.lock`), 'the lock was released');
    }

    it('SPEC 3.18: truncated snapshot', async () => {
      const store = await TapeStore.open(file);
      for (let i = 0; i < 200; i++) await store.append('s', message(`m${i}`, 'x'.repeat(500)));
      await store.close();
      fs.rmSync(journalPathOf(file));
      const bytes = fs.readFileSync(file);
      fs.writeFileSync(file, bytes.subarray(0, bytes.length - 5000));
      await refused(file, /truncated/);
      await refused(file, /truncated/, true);
    });

    it('SPEC 3.18: foreign SQLite database', async () => {
      const { loadSqlJs } = await import('../../../src/store/sqljs');
      const SQL = await loadSqlJs();
      const db = new SQL.Database();
      db.run("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('hi')");
      fs.writeFileSync(file, db.export());
      db.close();
      await refused(file, /not an Agent Tape/);
    });

    it('SPEC 3.18: a tape whose id is damaged (its journal could not be matched to it)', async () => {
      const store = await TapeStore.open(file);
      await store.append('s', message('m', 'x'));
      await store.close();
      fs.rmSync(journalPathOf(file));
      const { loadSqlJs } = await import('../../../src/store/sqljs');
      const db = new (await loadSqlJs()).Database(fs.readFileSync(file));
      db.run("UPDATE tape_meta SET value = '' WHERE key = 'tape_id'");
      fs.writeFileSync(file, db.export());
      db.close();
      await refused(file, /without a valid tape id/);
    });

    it('SPEC 3.18: non-SQLite, empty and corrupt files', async () => {
      fs.writeFileSync(file, 'this is a text file, not a database\n'.repeat(10));
      await refused(file, /not a SQLite database/);
      fs.writeFileSync(file, '');
      await refused(file, /empty/);
      const store = await TapeStore.inMemory();
      await store.append('s', message('m', 'x'));
      const bytes = Buffer.from(store.snapshotBytes());
      bytes.fill(0xab, 16384, 3 * 16384); // scribble over pages past the header
      fs.writeFileSync(file, bytes);
      await refused(file, /corrupt|not an Agent Tape/);
    });
  });

  it('SPEC 3.19: JSONL export then import reproduces the tape exactly', async () => {
    const store = await TapeStore.open(file);
    await store.append('s1', message('m1', 'hello "world" \u2028 ünïcödé 中文 \\ back', { key: 'k1' }));
    await store.append('s1', {
      kind: 'tool_call',
      name: 'read_file',
      payload: { messageId: 'm1', toolCallId: 't1', name: 'read_file', input: { path: 'a.ts', n: 1.5e300, nested: [1, { '2': null }] } },
      meta: { model: 'x' },
    });
    await store.append('s2', { kind: 'event', name: 'future/event', payload: { name: 'future/event', data: { unknownField: true } }, createdAt: 42 });
    await store.close();
    const jsonl1 = path.join(dir, 'one.tape.jsonl');
    const sqlite2 = path.join(dir, 'two.tape.sqlite');
    const jsonl2 = path.join(dir, 'two.tape.jsonl');
    await exportJsonl(file, jsonl1);
    await importJsonl(jsonl1, sqlite2);
    await exportJsonl(sqlite2, jsonl2);
    assert.strictEqual(fs.readFileSync(jsonl2, 'utf8'), fs.readFileSync(jsonl1, 'utf8'));
    const a = await TapeStore.open(file, { readOnly: true });
    const b = await openTapeFile(sqlite2, { readOnly: true });
    assert.deepStrictEqual(b.entries(null), a.entries(null));
    assert.deepStrictEqual(b.sessions(), a.sessions());
    assert.deepStrictEqual(b.foldRows('s1', 0), a.foldRows('s1', 0));
    await a.close();
    await b.close();
    // Hand-written payload text (spacing, key order, number spelling) survives byte for byte.
    const hand = path.join(dir, 'hand.tape.jsonl');
    const line =
      '{"sessionId":"h","entryId":1,"kind":"event","name":"turn/start","provenanceKey":null,"payload":{ "name" : "turn/start", "data": {"z":1.0,"a":[ 1e2 ]} },"meta":{"b":2,"a":1},"createdAt":7}\n';
    fs.writeFileSync(hand, line);
    const handDb = path.join(dir, 'hand.tape.sqlite');
    const handOut = path.join(dir, 'hand-out.tape.jsonl');
    await importJsonl(hand, handDb);
    await exportJsonl(handDb, handOut);
    assert.strictEqual(fs.readFileSync(handOut, 'utf8'), line);
  });
});

describe('the store as the source of folds and projections', () => {
  const call = (messageId: string, toolCallId: string): NewEntry => ({
    kind: 'tool_call',
    name: 'read_file',
    payload: { messageId, toolCallId, name: 'read_file', input: { path: 'a.ts' } },
  });
  const result = (messageId: string, toolCallId: string, status: 'ok' | 'error'): NewEntry => ({
    kind: 'tool_result',
    name: 'read_file',
    payload: { messageId, toolCallId, status, output: 'text' },
  });
  const retract = (messageId: string): NewEntry => ({ kind: 'event', name: RETRACTED_EVENT, payload: { name: RETRACTED_EVENT, data: { messageId } } });

  /** The store's fold rows (cached or read from SQLite) against rows derived from its entries. */
  function assertFoldRows(store: TapeStore, sessionId: string, afterEntryId: number): void {
    const expected = store.entries(sessionId).map(foldRowOf);
    assert.deepStrictEqual(store.foldRows(sessionId, afterEntryId), expected.slice(afterEntryId), `rows after ${afterEntryId}`);
  }

  it('fold rows match the entries before the cache exists, as appends extend it, and after reopening', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'f.tape.sqlite');
    try {
      const store = await TapeStore.open(file);
      await store.appendMany('s', [
        message('m1', 'question', { orderSeq: 1 }),
        message('m2', 'draft', { role: 'assistant', status: 'pending', orderSeq: 2 }),
        call('m2', 't1'),
        result('m2', 't1', 'ok'),
        message('m2', 'final', { role: 'assistant', orderSeq: 2 }),
        message('m3', 'second thoughts', { role: 'assistant', status: 'pending', orderSeq: 2.5 }),
        retract('m3'),
      ]);
      await store.append('other', message('o1', 'another session'));
      assertFoldRows(store, 's', 3); // no cache yet: read from SQLite after entry 3
      assertFoldRows(store, 's', 0); // builds the cache
      const rows = store.foldRows('s', 0);
      assert.ok(
        rows.some((r) => r.status === 'pending') && rows.some((r) => r.kind === 'event' && r.messageId === 'm3'),
        'the tape has pending and retracted messages',
      );

      // Appends after the cache exists extend it: a third version of m2, a failed tool call, a retraction, a duplicate.
      await store.append('s', message('m2', 'revised again', { role: 'assistant', status: 'error', orderSeq: 2 }));
      await store.appendMany('s', [call('m2', 't2'), result('m2', 't2', 'error'), retract('m1')]);
      await store.append('other', message('o2', 'not in s'));
      await store.append('s', message('m4', 'kept once', { key: 'k4', orderSeq: 4 }));
      assert.strictEqual((await store.append('s', message('m4', 'duplicate', { key: 'k4', orderSeq: 4 }))).deduplicated, true);
      await store.append('s', { kind: 'anchor', name: 'handoff/review', payload: { name: 'handoff/review', state: {} } });
      assert.strictEqual(store.headEntryId('s'), 14);
      for (const after of [0, 8, 13, 14]) assertFoldRows(store, 's', after);
      assertFoldRows(store, 'other', 0);
      const folds = new FoldCache(store);
      for (const includePending of [false, true]) {
        assert.deepStrictEqual(folds.view('s', { includePending }), foldAll(store.entries('s').map(foldRowOf), { includePending }));
      }
      await store.close();

      const reopened = await TapeStore.open(file, { readOnly: true });
      for (const after of [5, 0, 14]) assertFoldRows(reopened, 's', after);
      await reopened.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('FoldCache and ProjectionRunner over a TapeStore agree with full runs as the tape grows', async () => {
    const { ProjectionRunner, runProjection } = await import('../../../src/tape/projections/projection');
    const { createProjectionRegistry } = await import('../../../src/tape/projections');
    const store = await TapeStore.inMemory();
    const registry = createProjectionRegistry();
    const folds = new FoldCache(store);
    const runner = new ProjectionRunner(store, registry);
    for (let i = 0; i < 5; i++) {
      await store.append('s', message(`m${i}`, `text ${i}`, { orderSeq: i }));
      await store.append('s', {
        kind: 'tool_call',
        name: 'todo_write',
        payload: { messageId: `m${i}`, toolCallId: `t${i}`, name: 'todo_write', input: { todos: [{ id: `${i}`, content: `step ${i}`, status: 'pending' }] } },
      });
      assert.deepStrictEqual(folds.view('s', { includePending: false }), foldAll(store.entries('s').map(foldRowOf), { includePending: false }));
      const views = runner.views('s');
      for (const p of registry.list())
        assert.deepStrictEqual(views[p.key], p.view ? p.view(runProjection(p, store.entries('s'))) : runProjection(p, store.entries('s')), p.key);
    }
    await store.close();
  });
});
