import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import type { SqlJsStatic, SqlValue, Statement } from 'sql.js';
import { childrenBySession, childrenOf, forkStatus, lineageOf, parentOf } from '../../../src/store/forks';
import { readerOf } from '../../../src/store/lineage';
import { sessionAgentOf } from '../../../src/store/sessionAgent';
import { sessionUsages } from '../../../src/store/sessionUsage';
import { loadSqlJs } from '../../../src/store/sqljs';
import { linkedChildren, readableLinks } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { foldAll } from '../../../src/tape/fold';
import { buildFamilyTape } from './familyTape';
import { tempDir } from './helpers';

type Bound = SqlValue[] | Record<string, SqlValue> | undefined;

/**
 * Every statement sql.js steps while `run` runs, with the values it was last bound to: sql.js's
 * `exec`, `run` with values and prepared statements all step a Statement.
 */
async function queriesRunBy(SQL: SqlJsStatic, run: () => Promise<void>): Promise<Map<string, Bound>> {
  const probe = new SQL.Database();
  const proto = Object.getPrototypeOf(probe.prepare('SELECT 1')) as Statement;
  probe.close();
  const { bind, step } = proto;
  const bound = new WeakMap<Statement, Bound>();
  const seen = new Map<string, Bound>();
  proto.bind = function (this: Statement, values?: Bound) {
    bound.set(this, values);
    return bind.call(this, values);
  };
  proto.step = function (this: Statement) {
    seen.set(this.getSQL(), bound.get(this));
    return step.call(this);
  };
  try {
    await run();
  } finally {
    proto.bind = bind;
    proto.step = step;
  }
  return seen;
}

/** What opening a tape and showing each of its sessions reads, as the sessions view and `view` do. */
async function openAndShow(file: string, readOnly: boolean): Promise<void> {
  const store = await TapeStore.open(file, { readOnly });
  const reader = readerOf(store);
  const sessions = store.sessions();
  const family = childrenBySession(store);
  for (const { sessionId } of sessions) {
    foldAll(reader.foldRows(sessionId, 0), { includePending: false });
    reader.entries(sessionId);
    reader.getEntry(sessionId, 1);
    reader.headEntryId(sessionId);
    lineageOf(store, sessionId);
    parentOf(store, sessionId);
    childrenOf(store, sessionId);
    linkedChildren(store, sessionId);
    readableLinks(store, sessionId);
    sessionAgentOf(store, sessionId);
    if (reader.forkOf(sessionId) !== null) forkStatus(store, sessionId);
  }
  sessionUsages(
    store,
    family,
    sessions.map((s) => s.sessionId),
  );
  await store.close();
}

/** The plan's steps that read the whole entries table (its rows, or all of one of its indexes). */
function fullScansOf(SQL: SqlJsStatic, image: Uint8Array, queries: Map<string, Bound>): string[] {
  const db = new SQL.Database(image);
  const scans: string[] = [];
  try {
    for (const [sql, values] of queries) {
      if (!/\bentries\b/.test(sql) || /^\s*INSERT\b/i.test(sql)) continue;
      const plan = db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
      try {
        if (values !== undefined) plan.bind(values);
        while (plan.step()) {
          const detail = String(plan.get()[3]);
          if (/^SCAN entries\b/.test(detail)) scans.push(`${detail}  <-  ${sql.replace(/\s+/g, ' ')}`);
        }
      } finally {
        plan.free();
      }
    }
  } finally {
    db.close();
  }
  return scans;
}

describe('nothing that opens a tape, lists its sessions or shows one reads the whole entries table', () => {
  let dir: string;
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('every query they run searches an index or a small table (EXPLAIN QUERY PLAN), read-only and writable', async function () {
    this.timeout(30_000);
    dir = tempDir();
    const file = path.join(dir, 'family.tape.sqlite');
    const built = await TapeStore.open(file);
    await buildFamilyTape(built, { unansweredCall: true });
    await built.close();
    const SQL = await loadSqlJs();
    const queries = await queriesRunBy(SQL, async () => {
      await openAndShow(file, false);
      await openAndShow(file, true);
    });
    const ro = await TapeStore.open(file, { readOnly: true });
    assert.ok(
      ro.entries('p', { kind: 'tool_result' }).some((e) => e.payload.toolCallId === 'c9'),
      'the writable open ran crash repair (and its queries were checked)',
    );
    const image = ro.snapshotBytes();
    await ro.close();
    assert.ok(queries.size > 10, `only ${queries.size} queries recorded`);
    assert.deepStrictEqual(fullScansOf(SQL, image, queries), []);
  });
});
