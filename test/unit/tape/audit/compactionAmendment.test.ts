import { PIN_EVENT, SUMMARY_EDIT_EVENT } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../../src/agent/agentSession';
import { ScriptedModel } from '../../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../../src/agent/session/openTape';
import type { SessionHandle } from '../../../../src/agent/session/sessionHandle';
import { verifySession } from '../../../../src/rerun/verify';
import type { TapeStore } from '../../../../src/store/tapeStore';
import { auditCompaction } from '../../../../src/tape/audit/compactionAudit';
import { CompactionAmendError } from '../../../../src/tape/audit/compactionAmendment';
import { contextFrom, type ContextResult } from '../../../../src/tape/context';
import { assembleFromCache, BUILDER_BEFORE_AMENDMENTS } from '../../../../src/tape/contextAssembly';
import { validateNewEntry, type Entry } from '../../../../src/tape/entry';
import { FoldCache } from '../../../../src/tape/foldCache';
import { viewAssembledEntry } from '../../../../src/tape/manifest';
import { assistant, demoStore, user } from '../../agent/tapeToolPort/fixture';

const MODEL = { id: 'm1', vendor: 'test', contextWindow: 32_000, maxOutput: 8_000 };
const SUMMARY = '{"goal":"Fix the DB timeout","decisions":["raise timeoutMs to 5000"],"filesTouched":[],"openWork":["run the tests"]}';
const signal = new AbortController().signal;

/**
 * Session s1 of the demo store (a question, a read of src/db.ts, an answer: entries 2-7), compacted
 * by the model into the anchor at entry 8, then one more exchange (9, 10).
 */
async function compacted(): Promise<{ store: TapeStore; tape: OpenTape; session: SessionHandle }> {
  const store = await demoStore();
  const tape = new OpenTape(store);
  const session = tape.session('s1');
  const out = await session.compact(new ScriptedModel([[{ text: SUMMARY }]], MODEL), signal);
  assert.ok('anchor' in out && out.anchor.entryId === 8, JSON.stringify(out));
  await store.appendMany('s1', [user('u2', 4, 'now run the tests'), assistant('a3', 5, 'They pass.')]);
  return { store, tape, session };
}

const contextOf = (store: TapeStore): ContextResult => contextFrom(new FoldCache(store), 's1', { kind: 'last' }, (id) => store.requireEntry('s1', id));
const rows = (store: TapeStore): string => JSON.stringify(store.entries('s1'));

describe('amending a compaction (pin, edit, undo), by appending', () => {
  let store: TapeStore;
  let session: SessionHandle;
  let tape: OpenTape;
  beforeEach(async () => ({ store, tape, session } = await compacted()));
  afterEach(() => store.close());

  it('a pinned entry goes verbatim into the context after the summary; the anchor and every earlier entry stay as they were', async () => {
    const before = store.entries('s1');
    const receipt = await session.amendCompaction({ kind: 'pin', entryIds: [6] }, 8);
    assert.deepStrictEqual([receipt.entry.entryId, receipt.entry.name, receipt.anchorEntryId], [11, PIN_EVENT, 8]);
    assert.deepStrictEqual(receipt.entry.payload.data, { anchorEntryId: 8, entryIds: [6] });
    assert.deepStrictEqual(store.entries('s1').slice(0, before.length), before);
    assert.strictEqual(store.entries('s1').length, before.length + 1);

    const ctx = contextOf(store);
    assert.strictEqual(ctx.anchorEntryId, 8);
    assert.deepStrictEqual(
      ctx.messages.map((m) => [m.role, m.source, m.entryId]),
      [
        ['system', 'tape', 2],
        ['user', 'synthetic', null],
        ['user', 'tape', 6],
        ['user', 'tape', 9],
        ['assistant', 'tape', 10],
      ],
    );
    assert.match(ctx.messages[1].content, /^\[Checkpoint compaction\/manual at entry 8/);
    assert.strictEqual(
      ctx.messages[2].content,
      '[Pinned by the user: entry 6 (tool_result read_file), from before the checkpoint]\nexport const timeoutMs = 10;',
    );
  });

  it('pinned facts are one message; pins last until the next compaction, and an undo of that one brings them back', async () => {
    await session.amendCompaction({ kind: 'pin', facts: [{ kind: 'command', value: 'npm test -- --grep db' }] });
    await session.amendCompaction({ kind: 'pin', facts: [{ kind: 'path', value: 'src/db.ts' }], entryIds: [4] });
    let ctx = contextOf(store);
    assert.strictEqual(ctx.messages[2].content, '[Pinned by the user: facts from before the checkpoint]\n- command: npm test -- --grep db\n- path: src/db.ts');
    assert.deepStrictEqual([ctx.messages[3].entryId, ctx.messages[3].pinned], [4, true]);

    const second = await session.compact(new ScriptedModel([[{ text: 'second summary' }]], MODEL), signal);
    assert.ok('anchor' in second);
    ctx = contextOf(store);
    assert.strictEqual(ctx.anchorEntryId, second.anchor.entryId);
    assert.ok(!ctx.messages.some((m) => m.pinned), 'the pins were for the compaction before');

    const undo = await session.amendCompaction({ kind: 'undo' }, second.anchor.entryId);
    assert.strictEqual(undo.fit.anchorEntryId, 8);
    ctx = contextOf(store);
    assert.strictEqual(ctx.anchorEntryId, 8);
    assert.strictEqual(ctx.messages.filter((m) => m.pinned).length, 2);
  });

  it('an edited summary replaces the old one in the context (and in the audit); the anchor keeps its own', async () => {
    const anchorBefore = JSON.stringify(store.requireEntry('s1', 8));
    await session.amendCompaction({ kind: 'edit', summary: 'Goal: raise the DB timeout in src/db.ts to 5000 ms.' });
    const ctx = contextOf(store);
    assert.strictEqual(
      ctx.messages[1].content,
      '[Checkpoint compaction/manual at entry 8: the conversation before this point is summarised here.]\n\nGoal: raise the DB timeout in src/db.ts to 5000 ms.',
    );
    assert.strictEqual(JSON.stringify(store.requireEntry('s1', 8)), anchorBefore);
    const audit = auditCompaction(store.entries('s1'), 8);
    assert.deepStrictEqual(audit.totals.path, { facts: 1, inSummary: 1 }, "the edited summary names src/db.ts; the model's did not");
    await session.amendCompaction({ kind: 'edit', summary: 'the second edit wins' });
    assert.match(contextOf(store).messages[1].content, /\n\nthe second edit wins$/);
  });

  it('an undo: the context starts from the anchor before (here the session start), and the receipt says how it fits', async () => {
    const receipt = await session.amendCompaction({ kind: 'undo', reason: 'the summary lost the file' });
    assert.deepStrictEqual(receipt.entry.payload.data, { anchorEntryId: 8, reason: 'the summary lost the file' });
    const ctx = contextOf(store);
    assert.strictEqual(ctx.anchorEntryId, null);
    assert.deepStrictEqual(
      ctx.messages.map((m) => m.entryId),
      [2, 3, 4, 5, 6, 7, 9, 10],
    );
    // No request was recorded, so there is no window to fit to.
    assert.deepStrictEqual([receipt.fit.anchorEntryId, receipt.fit.budget, receipt.fit.outOfBudget], [null, null, []]);
    assert.ok(receipt.fit.estimatedTokens > 0);
    await assert.rejects(
      session.amendCompaction({ kind: 'undo' }),
      (e: unknown) => e instanceof CompactionAmendError && e.code === 'no_compaction' && /every compaction of it is undone/.test(e.message),
    );
  });

  it('refuses, writing nothing: no compaction, a handoff in force, a stale anchor, a pin of a later or missing entry, or of nothing', async () => {
    const refused = async (amendment: unknown, code: string, message: RegExp, on = session, expected?: number): Promise<void> => {
      const before = rows(store);
      await assert.rejects(
        on.amendCompaction(amendment, expected),
        (e: unknown) => e instanceof CompactionAmendError && e.code === code && message.test(e.message),
      );
      assert.strictEqual(rows(store), before);
    };
    await refused({ kind: 'undo' }, 'no_compaction', /it has no compaction/, tape.session('s2'));
    await refused({ kind: 'pin', entryIds: [3] }, 'stale', /entry 7 is not the compaction in force \(that is compaction\/manual at entry 8\)/, session, 7);
    await refused({ kind: 'pin', entryIds: [9] }, 'invalid', /not before the compaction at entry 8/);
    await refused({ kind: 'pin', entryIds: [99] }, 'invalid', /not in the session/);
    await refused({ kind: 'pin', entryIds: [] }, 'invalid', /at least one entry or fact/);
    await refused({ kind: 'pin', facts: [{ kind: 'secret', value: 'x' }] }, 'invalid', /not an amendment/);
    await refused({ kind: 'edit', summary: '   ' }, 'invalid', /empty/);
    await refused({ kind: 'drop table' }, 'invalid', /not an amendment/);
    await session.handoff('next', 'go on');
    await refused({ kind: 'undo' }, 'no_compaction', /the anchor in force is handoff\/next at entry 11, not a compaction/);
  });

  const refusedPin = async (amendment: unknown, message: RegExp): Promise<void> => {
    const before = rows(store);
    await assert.rejects(
      session.amendCompaction(amendment),
      (e: unknown) => e instanceof CompactionAmendError && e.code === 'invalid' && message.test(e.message),
    );
    assert.strictEqual(rows(store), before);
  };

  it('a pin names conversation only: the session start, the system prompt, an earlier compaction or an event is refused by name', async () => {
    await store.append('s1', { kind: 'event', name: 'provider/attempt', payload: { name: 'provider/attempt', data: { attempt: 1 } } });
    await store.append('s1', { kind: 'error', name: 'error/provider', payload: { kind: 'provider', message: 'HTTP 503 from the model' } });
    const second = await session.compact(new ScriptedModel([[{ text: 'second summary' }]], MODEL), signal);
    assert.ok('anchor' in second && second.anchor.entryId === 13, JSON.stringify(second));
    const only = 'only messages, tool calls, tool results and errors can be pinned';
    await refusedPin({ kind: 'pin', entryIds: [1] }, new RegExp(`^entry 1 is a session/start anchor; ${only}$`));
    await refusedPin({ kind: 'pin', entryIds: [2] }, new RegExp(`^entry 2 is a system/prompt system entry; ${only}$`));
    await refusedPin({ kind: 'pin', entryIds: [6, 8] }, new RegExp(`^entry 8 is a compaction/manual anchor; ${only}$`));
    await refusedPin({ kind: 'pin', entryIds: [11] }, new RegExp(`^entry 11 is a provider/attempt event; ${only}$`));

    const receipt = await session.amendCompaction({ kind: 'pin', entryIds: [12, 5, 9] });
    assert.deepStrictEqual(receipt.entry.payload.data, { anchorEntryId: 13, entryIds: [5, 9, 12] });
    assert.deepStrictEqual(
      contextOf(store)
        .messages.filter((m) => m.pinned)
        .map((m) => m.content.split('\n')[0]),
      [
        '[Pinned by the user: entry 5 (tool_call read_file), from before the checkpoint]',
        '[Pinned by the user: entry 9 (message message/user), from before the checkpoint]',
        '[Pinned by the user: entry 12 (error error/provider), from before the checkpoint]',
      ],
    );
  });

  it('an entry already pinned is not pinned again: all of them refused, some of them left out of the pin (the receipt names them), repeats once', async () => {
    await session.amendCompaction({ kind: 'pin', entryIds: [6], facts: [{ kind: 'path', value: 'src/db.ts' }] });
    await refusedPin({ kind: 'pin', entryIds: [6] }, /^entry 6 is already pinned$/);
    await refusedPin({ kind: 'pin', entryIds: [6, 6] }, /^entry 6 is already pinned$/);
    await refusedPin({ kind: 'pin', facts: [{ kind: 'path', value: 'src/db.ts' }] }, /^the fact is already pinned$/);
    await refusedPin({ kind: 'pin', entryIds: [6], facts: [{ kind: 'path', value: 'src/db.ts' }] }, /^entry 6 and the fact are already pinned$/);

    const some = await session.amendCompaction({ kind: 'pin', entryIds: [6, 4, 6, 4] });
    assert.deepStrictEqual([some.entry.payload.data, some.alreadyPinned], [{ anchorEntryId: 8, entryIds: [4] }, [6]]);
    const facts = await session.amendCompaction({ kind: 'pin', entryIds: [4, 6], facts: [{ kind: 'command', value: 'npm test' }] });
    assert.deepStrictEqual([facts.entry.payload.data, facts.alreadyPinned], [{ anchorEntryId: 8, facts: [{ kind: 'command', value: 'npm test' }] }, [4, 6]]);
    await refusedPin({ kind: 'pin', entryIds: [4, 6] }, /^entries 4, 6 are already pinned$/);
    assert.deepStrictEqual(
      contextOf(store)
        .messages.filter((m) => m.pinned)
        .map((m) => m.entryId),
      [null, 6, 4],
    );
  });

  it('a pin written before entry order was settled keeps its order: the builder lays out a pin as written, so recorded requests rebuild', async () => {
    await store.append('s1', { kind: 'event', name: PIN_EVENT, payload: { name: PIN_EVENT, data: { anchorEntryId: 8, entryIds: [6, 4] } } });
    assert.deepStrictEqual(
      contextOf(store)
        .messages.filter((m) => m.pinned)
        .map((m) => m.entryId),
      [6, 4],
    );
  });

  it('an edited summary is bounded in characters a person counts (code points), with a plain reason', async () => {
    const emoji = '\u{1F600}'.repeat(40_000);
    assert.strictEqual(emoji.length, 80_000);
    const receipt = await session.amendCompaction({ kind: 'edit', summary: emoji });
    assert.strictEqual(receipt.entry.payload.data && (receipt.entry.payload.data as { summary: string }).summary, emoji);
    assert.match(contextOf(store).messages[1].content, /\u{1F600}{40000}$/u);
    const atBound = '\u{1F600}'.repeat(65_536);
    assert.doesNotThrow(() =>
      validateNewEntry({ kind: 'event', name: SUMMARY_EDIT_EVENT, payload: { name: SUMMARY_EDIT_EVENT, data: { anchorEntryId: 8, summary: atBound } } }),
    );
    await refusedPin({ kind: 'edit', summary: 'x'.repeat(70_000) }, /^the summary is 70,000 characters; at most 65,536$/);
    await refusedPin({ kind: 'edit', summary: `${atBound}!` }, /^the summary is 65,537 characters; at most 65,536$/);
  });

  it('a pin from a hostile file naming entries the view lacks, or later ones, is skipped, not a failure', async () => {
    await store.append('s1', { kind: 'event', name: PIN_EVENT, payload: { name: PIN_EVENT, data: { anchorEntryId: 8, entryIds: [500, 12, 9, 6] } } });
    const ctx = contextOf(store);
    assert.deepStrictEqual(
      ctx.messages.filter((m) => m.pinned).map((m) => m.entryId),
      [6],
    );
  });
});

describe('verify rebuilds requests of both builders around amendments', function () {
  this.timeout(30_000);
  let dir: string;
  let store: TapeStore;
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a session with @2 requests before and after a pin, and an @1 request recorded after it (which ignores it), verifies', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-amend-'));
    ({ store } = await compacted());
    const tape = new OpenTape(store);
    const turn = async (text: string): Promise<void> => {
      const outcome = await new AgentSession({
        tape,
        sessionId: 's1',
        model: new ScriptedModel([[{ text: 'ok' }]], MODEL),
        workspace: dir,
        permissions: { edits: false, commands: false },
        environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-12-02' },
      }).runTurn(text, { signal });
      assert.strictEqual(outcome.outcome, 'answer');
    };
    await turn('first');
    await tape.session('s1').amendCompaction({ kind: 'pin', entryIds: [6] });
    await turn('second');
    const pinnedRequest = tape.session('s1').entries({ kind: 'event', name: 'view/assembled' }).at(-1) as Entry;
    assert.ok(JSON.stringify(pinnedRequest.payload).includes('"reason":"pinned"'));

    // A request as the builder before amendments assembled it: without the pin.
    const { manifest } = assembleFromCache(
      new FoldCache(store),
      {
        sessionId: 's1',
        turnId: 'old-builder',
        requestSeq: 1,
        viewId: 'old-builder/1',
        assembledAt: 1,
        getEntry: (id) => store.requireEntry('s1', id),
        model: MODEL,
        tools: [],
        countTokens: () => 10,
      },
      BUILDER_BEFORE_AMENDMENTS,
    );
    assert.strictEqual(manifest.builderVersion, 'agent-tape/assemble@1');
    assert.ok(!manifest.included.some((i) => i.reason === 'pinned'));
    await store.append('s1', viewAssembledEntry(manifest));

    const report = verifySession(tape, 's1');
    assert.deepStrictEqual(
      report.requests.map((r) => r.status),
      ['match', 'match', 'match'],
    );
    assert.strictEqual(report.ok, true);
  });
});
