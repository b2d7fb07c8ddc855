// What opening a tape and drawing its sessions cost besides the file itself (schema 3), on a tape of
// 2,000 sessions of 100 entries, one in ten linked as a subagent: listing the sessions, finding who
// links a child, and the crash repair's look for unanswered calls at a writable open. Against the
// baseline of the schema 2 queries on the same database (a GROUP BY over every row, a scan for link
// events, a pass over every tool row), run side by side. Once pages are read on demand, what each
// reads is what it costs: time here is read in memory, so the ratios understate it.
import { SUBAGENT_LINKED } from '../src/tape/entryNames';
import type { Database } from 'sql.js';
import { interruptedCallRepairs, markCallsChecked } from '../src/store/crashRepair';
import { childrenBySession } from '../src/store/forks';
import { TapeStore } from '../src/store/tapeStore';
import { loadSqlJs } from '../src/store/sqljs';
import { linkEntry } from '../src/tape/fork';
import { rowTupleOf, type RowTuple } from '../src/store/rowTuple';
import { median, round, sessionRows, targets, time } from './common';

const SESSIONS = 2000;
const PER_SESSION = 100;
const ROUNDS = 7;

/** The schema 2 queries, as src/store/queries.ts, forks.ts and crashRepair.ts ran them. */
const BASELINE = {
  listSessions: `SELECT session_id, max(entry_id), count(*), sum(kind = 'anchor'), min(created_at), max(created_at)
    FROM entries GROUP BY session_id ORDER BY min(id)`,
  linkEvents: `SELECT session_id, entry_id, kind, name, provenance_key, payload, meta, created_at FROM entries NOT INDEXED
    WHERE kind = 'event' AND name = '${SUBAGENT_LINKED}' ORDER BY id`,
  unansweredCalls: `SELECT DISTINCT session_id FROM (SELECT session_id FROM entries WHERE tool_call_id IS NOT NULL
    GROUP BY session_id, message_id, tool_call_id HAVING max(kind = 'tool_result') = 0)`,
};
const LINK_EVENTS = `SELECT session_id, entry_id, kind, name, provenance_key, payload, meta, created_at FROM entries
  WHERE kind = 'event' AND name = '${SUBAGENT_LINKED}' ORDER BY id`;

/** The grown session has no unanswered call: the repair reads none of its entries. */
const unread = (): never => {
  throw new Error('crash repair read a session it had no reason to');
};

function rows(): RowTuple[] {
  const all: RowTuple[] = [];
  for (let s = 0; s < SESSIONS; s++) {
    const session = sessionRows(`s${s}`, PER_SESSION);
    if (s % 10 === 9) {
      const child = `s${s - 1}`;
      const link = linkEntry({ childSessionId: child, childHeadEntryId: PER_SESSION, childHeadHash: '0'.repeat(64), childStartedAt: 0, outcome: 'completed' });
      const entry = {
        ...link,
        sessionId: `s${s}`,
        entryId: PER_SESSION + 1,
        provenanceKey: link.provenanceKey ?? null,
        meta: {},
        createdAt: 1_700_000_000_000,
      };
      session.push(rowTupleOf(entry, JSON.stringify(entry.payload), '{}'));
    }
    all.push(...session);
  }
  return all;
}

const ms = (fn: () => void): number => round(median(Array.from({ length: ROUNDS }, () => time(fn))));
const count = (db: Database, sql: string): number => db.exec(sql)[0]?.values.length ?? 0;

async function main(): Promise<void> {
  const store = await TapeStore.inMemory(rows());
  const db = new (await loadSqlJs()).Database(store.snapshotBytes());
  markCallsChecked(db); // as after the first writable open repaired what there was
  db.run("UPDATE sessions SET head_entry_id = head_entry_id + 1 WHERE session_id = 's7'"); // one session grew since

  const figures = {
    listSessions: { current: ms(() => store.sessions()), baseline: ms(() => db.exec(BASELINE.listSessions)) },
    linkEvents: { current: ms(() => db.exec(LINK_EVENTS)), baseline: ms(() => db.exec(BASELINE.linkEvents)) },
    crashRepairLook: {
      current: ms(() => interruptedCallRepairs(db, { foldRows: unread, sessionStart: unread, getEntry: unread })),
      baseline: ms(() => db.exec(BASELINE.unansweredCalls)),
    },
  };
  const found = { sessions: store.sessions().length, links: count(db, LINK_EVENTS), baselineLinks: count(db, BASELINE.linkEvents) };
  const treeMs = round(time(() => childrenBySession(store)));
  const ratios = Object.fromEntries(Object.entries(figures).map(([k, v]) => [k, round(v.baseline / v.current, 1)])) as Record<keyof typeof figures, number>;
  db.close();
  await store.close();
  console.log(
    JSON.stringify({
      unit: 'ms, median of rounds; ratios are baseline / current',
      tape: { sessions: SESSIONS, entriesPerSession: PER_SESSION, links: found.links },
      rounds: ROUNDS,
      ms: figures,
      ratios,
      sessionTreeMs: treeMs,
      targets: targets({
        'same sessions and links as the baseline': found.sessions === SESSIONS && found.links === found.baselineLinks,
        'listing sessions >= 10x faster': ratios.listSessions >= 10,
        'finding links >= 10x faster': ratios.linkEvents >= 10,
        'crash repair look >= 10x faster': ratios.crashRepairLook >= 10,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
