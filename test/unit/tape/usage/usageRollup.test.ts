import * as assert from 'assert';
import fc from 'fast-check';
import { validateEntry, type Entry, type JsonObject, type NewEntry } from '../../../../src/tape/entry';
import { planMerge } from '../../../../src/tape/fork';
import { addUsage, compactCount, NO_USAGE, usageDetail, usageLine, type UsageFigures } from '../../../../src/tape/usage/usageFigures';
import { addStoredAttempts, emptyStoredUsage, ownUsage, rollUpUsage, type StoredUsage } from '../../../../src/tape/usage/usageRollup';

const figures = (f: Partial<UsageFigures>): UsageFigures => ({ ...NO_USAGE, ...f });

/** Stored entries of one session, numbered as the store numbers them. */
class Session {
  readonly entries: Entry[] = [];
  constructor(readonly sessionId: string) {}
  add(e: NewEntry): Entry {
    const entry = validateEntry({
      sessionId: this.sessionId,
      entryId: this.entries.length + 1,
      kind: e.kind,
      name: e.name,
      provenanceKey: e.provenanceKey ?? null,
      payload: e.payload,
      meta: e.meta ?? {},
      createdAt: e.createdAt ?? 1_700_000_000_000,
    });
    this.entries.push(entry);
    return entry;
  }
  /** An attempt as ingest stores it now: its input counts the cache (src/ingest/tapeUsage.ts). */
  attempt(usage: JsonObject): Entry {
    return this.add({
      kind: 'event',
      name: 'provider/attempt',
      payload: { name: 'provider/attempt', data: { usage: { inputIncludesCached: true, ...usage } } },
    });
  }
}

/** What the store's merge appends to the parent (planMerge): the fork's delta as copies, then the receipt. */
function merge(parent: Session, fork: Session): void {
  const plan = planMerge({
    forkSessionId: fork.sessionId,
    fork: { parentSessionId: parent.sessionId, parentHeadEntryId: parent.entries.length, forkId: 'f' },
    delta: fork.entries,
    forkHeadEntryId: fork.entries.length,
    parentHeadAtMerge: parent.entries.length,
    parentOrderSeqAtFork: 0,
    parentOrderSeqNow: 0,
  });
  for (const e of plan.entries) parent.add(e);
}

const stored = (entries: readonly Entry[]): StoredUsage => {
  const s = emptyStoredUsage();
  addStoredAttempts(s, entries);
  return s;
};

describe('usage rolled up over subagents and forks', () => {
  it("sums a session's stored attempts, with cache creation where present, and nothing of other entries or of what is not a positive number", () => {
    const s = new Session('s');
    s.attempt({ inputTokens: 1200, outputTokens: 30, cachedTokens: 900, cacheCreationTokens: 40 });
    s.attempt({ inputTokens: 10, outputTokens: -5, cachedTokens: 'many', cacheCreationTokens: null });
    s.add({ kind: 'event', name: 'provider/attempt', payload: { name: 'provider/attempt', data: null } });
    s.add({ kind: 'event', name: 'turn/end', payload: { name: 'turn/end', data: { usage: { inputTokens: 5 } } } });
    const own = ownUsage(stored(s.entries), () => true);
    assert.deepStrictEqual(own, { requests: 3, inputTokens: 1210, outputTokens: 30, cachedTokens: 900, cacheCreationTokens: 40 });
  });

  it('counts the cache into the input of attempts stored before with it apart (said, or told by a cache-write figure), so agents add like with like', () => {
    const s = new Session('s');
    s.attempt({ inputTokens: 100, cachedTokens: 900, cacheCreationTokens: 40, inputIncludesCached: false });
    const unsaid = { inputTokens: 10, cachedTokens: 5, cacheCreationTokens: 1 };
    s.add({ kind: 'event', name: 'provider/attempt', payload: { name: 'provider/attempt', data: { usage: unsaid } } });
    s.attempt({ inputTokens: 1000, cachedTokens: 600 });
    const own = ownUsage(stored(s.entries), () => true);
    assert.strictEqual(own.inputTokens, 100 + 900 + 40 + (10 + 5 + 1) + 1000);
  });

  it("a merged fork's copies count in the fork while it is on the tape, and in the parent once it is not", () => {
    const parent = new Session('p');
    parent.attempt({ inputTokens: 100, outputTokens: 10 });
    const fork = new Session('p::fork::f');
    fork.attempt({ inputTokens: 7, outputTokens: 1 });
    merge(parent, fork);
    const p = stored(parent.entries);
    const onTape = new Set(['p', 'p::fork::f']);
    assert.deepStrictEqual(
      ownUsage(p, (id) => onTape.has(id)),
      figures({ requests: 1, inputTokens: 100, outputTokens: 10 }),
    );
    const own = new Map([
      ['p', ownUsage(p, (id) => onTape.has(id))],
      ['p::fork::f', ownUsage(stored(fork.entries), (id) => onTape.has(id))],
    ]);
    const rolled = rollUpUsage(own, new Map([['p', [{ sessionId: 'p::fork::f' }]]]));
    assert.deepStrictEqual(rolled.get('p'), {
      own: figures({ requests: 1, inputTokens: 100, outputTokens: 10 }),
      rolledUp: figures({ requests: 2, inputTokens: 107, outputTokens: 11 }),
      descendants: 1,
    });
    onTape.delete('p::fork::f');
    assert.deepStrictEqual(
      ownUsage(p, (id) => onTape.has(id)),
      figures({ requests: 2, inputTokens: 107, outputTokens: 11 }),
    );
  });

  it('a loop of parents on a damaged tape counts each session once in every roll-up', () => {
    const own = new Map([
      ['a', figures({ requests: 1, inputTokens: 1 })],
      ['b', figures({ requests: 1, inputTokens: 2 })],
    ]);
    const rolled = rollUpUsage(
      own,
      new Map([
        ['a', [{ sessionId: 'b' }]],
        ['b', [{ sessionId: 'a' }]],
      ]),
    );
    assert.deepStrictEqual(rolled.get('a')?.rolledUp, figures({ requests: 2, inputTokens: 3 }));
    assert.deepStrictEqual(rolled.get('b')?.rolledUp, figures({ requests: 2, inputTokens: 3 }));
  });

  it('reads compactly and in full', () => {
    assert.deepStrictEqual([0, 999, 1000, 1234, 9_950, 30_400, 999_499, 999_960, 1_234_567, 12_345_678, 2_500_000_000, 2_500_000_000_000].map(compactCount), [
      '0',
      '999',
      '1k',
      '1.2k',
      '10k',
      '30k',
      '999k',
      '1M',
      '1.2M',
      '12M',
      '2.5B',
      '2500B',
    ]);
    const u = figures({ requests: 12, inputTokens: 1_234_567, outputTokens: 30_000, cachedTokens: 900_000 });
    assert.strictEqual(usageLine(u), '12 requests · 1.2M in · 30k out · 900k cached');
    assert.strictEqual(usageLine({ ...u, requests: 1, cacheCreationTokens: 4_000 }), '1 request · 1.2M in · 30k out · 900k cached · 4k cache write');
    assert.strictEqual(usageLine(NO_USAGE), 'no requests');
    assert.strictEqual(usageDetail(u), '12 requests: 1,234,567 input tokens (900,000 cached), 30,000 output tokens');
    assert.strictEqual(
      usageDetail(figures({ requests: 1, inputTokens: 1, outputTokens: 1, cacheCreationTokens: 5 })),
      '1 request: 1 input token (5 written to the cache), 1 output token',
    );
  });

  /**
   * A random tape: sessions each under an earlier one or a root, each with attempts of its own;
   * forks merged into their parent from the deepest up (so a parent's merge carries its children's
   * copies along), and some sessions without children deleted.
   */
  const tapeArb = fc
    .array(
      fc.record({
        parent: fc.option(fc.nat(), { nil: undefined }),
        fork: fc.boolean(),
        merged: fc.boolean(),
        deleted: fc.boolean(),
        attempts: fc.array(
          fc.record({ inputTokens: fc.nat(1_000_000), outputTokens: fc.nat(50_000), cachedTokens: fc.nat(500_000), cacheCreationTokens: fc.nat(9) }),
          {
            maxLength: 4,
          },
        ),
        split: fc.nat(),
      }),
      { minLength: 1, maxLength: 12 },
    )
    .map((specs) => specs.map((s, i) => ({ ...s, parent: i === 0 || s.parent === undefined ? undefined : s.parent % i })));

  it('rolled up = own + the roll-ups of the children, and across the tree every attempt counts once (forks merged, some deleted), read whole or in two parts', () => {
    fc.assert(
      fc.property(tapeArb, (specs) => {
        const sessions = specs.map((_, i) => new Session(`s${i}`));
        // Each original attempt, by the session that stored it first.
        const originals = specs.map((s, i) => s.attempts.map((a) => ({ usage: figures({ requests: 1, ...a }), entry: sessions[i].attempt(a) })));
        for (let i = specs.length - 1; i > 0; i--) {
          const parent = specs[i].parent;
          if (parent !== undefined && specs[i].fork && specs[i].merged) merge(sessions[parent], sessions[i]);
        }
        const hasChildren = new Set(specs.flatMap((s) => (s.parent === undefined ? [] : [s.parent])));
        const onTape = new Set(specs.flatMap((s, i) => (s.deleted && !hasChildren.has(i) ? [] : [`s${i}`])));
        const own = new Map<string, UsageFigures>();
        for (const [i, session] of sessions.entries()) {
          if (!onTape.has(session.sessionId)) continue;
          // Read on from a point, as the store's cache reads a session that grew.
          const at = specs[i].split % (session.entries.length + 1);
          const s = stored(session.entries.slice(0, at));
          addStoredAttempts(s, session.entries.slice(at));
          own.set(
            session.sessionId,
            ownUsage(s, (id) => onTape.has(id)),
          );
        }
        const children = new Map<string, { sessionId: string }[]>();
        for (const [i, s] of specs.entries()) {
          if (s.parent === undefined || !onTape.has(`s${i}`)) continue;
          const list = children.get(`s${s.parent}`) ?? [];
          list.push({ sessionId: `s${i}` });
          children.set(`s${s.parent}`, list);
        }
        const rolled = rollUpUsage(own, children);

        for (const [id, u] of rolled) {
          const below = (children.get(id) ?? []).map((c) => rolled.get(c.sessionId)?.rolledUp ?? NO_USAGE);
          assert.deepStrictEqual(u.rolledUp, below.reduce(addUsage, u.own), id);
        }
        // What the tape still records: every original on it, and those of a deleted merged fork through their copies.
        const recorded = specs.flatMap((s, i) => (onTape.has(`s${i}`) || (s.fork && s.merged && s.parent !== undefined) ? originals[i] : []));
        const roots = [...rolled].filter(([id]) => specs[Number(id.slice(1))].parent === undefined);
        const total = roots.map(([, u]) => u.rolledUp).reduce(addUsage, NO_USAGE);
        assert.deepStrictEqual(total, recorded.map((o) => o.usage).reduce(addUsage, NO_USAGE));
        assert.strictEqual(total.requests, recorded.length);
      }),
      { numRuns: 400 },
    );
  });
});
