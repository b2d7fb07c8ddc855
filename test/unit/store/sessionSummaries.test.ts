import * as assert from 'assert';
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { forkSession } from '../../../src/store/forks';
import { journalPathOf } from '../../../src/store/journal';
import { loadSqlJs } from '../../../src/store/sqljs';
import { linkSubagent, startSubagent } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry, NewEntry } from '../../../src/tape/entry';
import { ForkRefusedError } from '../../../src/tape/fork';
import { randomTape } from '../tape/randomTape';
import { summariesFromRows } from './familyTape';
import { tempDir } from './helpers';

const SESSIONS = ['a', 'b', 'c'];

type Step = { op: 'append'; session: number; entries: Entry[] } | { op: 'fork' | 'subagent' | 'delete'; session: number } | { op: 'crash' | 'readOnly' };

const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('append' as const), session: fc.nat(SESSIONS.length - 1), entries: randomTape(8) }) },
  fc.record({ op: fc.constantFrom('fork' as const, 'subagent' as const, 'delete' as const), session: fc.nat(SESSIONS.length - 1) }),
  fc.record({ op: fc.constantFrom('crash' as const, 'readOnly' as const) }),
);

const newEntries = (xs: Entry[]): NewEntry[] => xs.slice(1).map(({ kind, name, payload }) => ({ kind, name, payload })); // each starts with session/start

describe('session summaries (schema 3)', () => {
  let dir: string;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Listing the sessions from their summaries gives what the GROUP BY over the rows gave. */
  async function assertSummariesMatchRows(store: TapeStore, what: string): Promise<void> {
    assert.deepStrictEqual(store.sessions(), summariesFromRows(await loadSqlJs(), store.snapshotBytes()), what);
  }

  it('property: sessions() lists what the rows say, through appends, forks, subagents, deletions and replayed journals', async function () {
    this.timeout(120_000);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const file = path.join(dir, `t${run++}.tape.sqlite`);
        const store = await TapeStore.open(file);
        try {
          for (const [i, s] of steps.entries()) {
            const sessionId = 'session' in s ? (store.sessions()[s.session]?.sessionId ?? SESSIONS[s.session]) : '';
            const onTape = sessionId !== '' && store.headEntryId(sessionId) > 0;
            if (s.op === 'append') await store.appendMany(sessionId, newEntries(s.entries));
            else if (s.op === 'fork' && onTape) await forkSession(store, sessionId).catch((e: unknown) => assert.ok(e instanceof ForkRefusedError, String(e)));
            else if (s.op === 'subagent' && onTape) {
              const { childSessionId } = await startSubagent(store, sessionId, { task: 'dig' });
              await linkSubagent(store, sessionId, childSessionId, 'completed');
            } else if (s.op === 'delete' && onTape) await store.deleteSession(sessionId);
            else if (s.op === 'readOnly') {
              // Opened beside the writer: the snapshot with the writer's journal replayed onto it.
              const reader = await TapeStore.open(file, { readOnly: true });
              await assertSummariesMatchRows(reader, `step ${i}: a read-only open`);
              assert.deepStrictEqual(reader.sessions(), store.sessions(), `step ${i}: the reader lists what the writer does`);
              await reader.close();
            } else if (s.op === 'crash') {
              // The files as a crash leaves them, opened writable: the journal replayed, interrupted calls repaired.
              const copy = path.join(dir, `crash${i}.tape.sqlite`);
              fs.copyFileSync(file, copy);
              fs.copyFileSync(journalPathOf(file), journalPathOf(copy));
              const recovered = await TapeStore.open(copy);
              await assertSummariesMatchRows(recovered, `step ${i}: after a crash`);
              await recovered.close();
            }
            await assertSummariesMatchRows(store, `step ${i}: ${s.op}`);
          }
        } finally {
          await store.close();
        }
        const reopened = await TapeStore.open(file, { readOnly: true });
        await assertSummariesMatchRows(reopened, 'reopened after a checkpoint');
        await reopened.close();
      }),
      { numRuns: 25 },
    );
  });
});
