import { VIEW_ASSEMBLED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import { OpenTape } from '../../../src/agent/session/openTape';
import { ProviderError } from '../../../src/agent/model/providerError';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { CURRENT_REBUILDER, type Rebuilder } from '../../../src/rerun/rebuilder';
import { describeRequest, verifyTape, type RequestReport } from '../../../src/rerun/verify';
import { jsonlLine, parseJsonl } from '../../../src/store/jsonl';
import { mergeFork, forkSession } from '../../../src/store/forks';
import { rowTupleOf } from '../../../src/store/rowTuple';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { hashManifest, type ViewManifest } from '../../../src/tape/manifest';
import { message } from '../store/helpers';

const SESSION = 'verify-me';
const SUMMARY = JSON.stringify({ goal: 'Read the notes', decisions: ['notes say esbuild'], filesTouched: [], openWork: ['list the files'] });
const BIG = `${'0123456789abcdef'.repeat(1_500)}\n`; // 24 KB: sent capped at 16 KiB

/**
 * A session the real agent records against a scripted model: tool calls, a tool result too large
 * for the context (capped), a turn whose context no longer fits a small window after a failed
 * compaction (history dropped for the budget), and a manual compaction (a checkpoint).
 */
async function record(dir: string): Promise<RawEntry[]> {
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'notes.md'), 'Build with esbuild.\n');
  fs.writeFileSync(path.join(ws, 'big.txt'), BIG);
  const store = await TapeStore.open(path.join(dir, 'rec.tape.sqlite'));
  let clock = 1_780_000_000_000;
  const session = (responses: ScriptedStep[][], contextWindow = 32_000) =>
    new AgentSession({
      tape: new OpenTape(store),
      sessionId: SESSION,
      model: new ScriptedModel(responses, { id: 'scripted', vendor: 'test', contextWindow, maxOutput: 1_000 }),
      workspace: ws,
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
      now: () => (clock += 250),
    });
  const signal = new AbortController().signal;
  try {
    await session([
      [
        { text: 'Reading.' },
        { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } },
        { toolCall: { id: 'c2', name: 'read_file', arguments: { path: 'big.txt' } } },
      ],
      [{ text: 'It says to build with esbuild; big.txt is hex.' }],
    ]).runTurn('Read notes.md and big.txt', { signal });
    // A window too small for that turn: the compaction fails, so the request drops history to fit.
    const trimmed = await session([[{ error: new ProviderError('bad_response') }], [{ text: 'Short answer.' }]], 6_000).runTurn('Answer briefly', { signal });
    assert.strictEqual(trimmed.outcome, 'answer');
    const compacted = await new OpenTape(store)
      .session(SESSION)
      .compact(new ScriptedModel([[{ text: SUMMARY }]], { id: 'scripted', vendor: 'test', contextWindow: 32_000, maxOutput: 1_000 }), signal);
    assert.ok('anchor' in compacted);
    await session([[{ toolCall: { id: 'c3', name: 'list_dir', arguments: { path: '.' } } }], [{ text: 'Two files.' }]]).runTurn('List the files', { signal });
    return store.rawEntries(SESSION);
  } finally {
    await store.close();
  }
}

/** A tape from JSONL lines, so a test can alter what append never would. */
const tapeOf = (raws: readonly RawEntry[]): Promise<TapeStore> => TapeStore.inMemory(parseJsonl(raws.map(jsonlLine).join(''), 'altered.tape.jsonl'));

const manifestOf = (raw: RawEntry): ViewManifest => (JSON.parse(raw.payload) as { data: ViewManifest }).data;

/** The raws with the manifest of `entryId` changed by `edit`, resealed unless `reseal` is false. */
function withManifest(raws: readonly RawEntry[], entryId: number, edit: (m: ViewManifest) => void, reseal = true): RawEntry[] {
  return raws.map((r) => {
    if (r.entryId !== entryId) return r;
    const payload = JSON.parse(r.payload) as { name: string; data: ViewManifest };
    edit(payload.data);
    if (reseal) payload.data.hashes.manifestHash = hashManifest(payload.data);
    return { ...r, payload: JSON.stringify(payload) };
  });
}

async function verified(raws: readonly RawEntry[], rebuilders?: readonly Rebuilder[]) {
  const store = await tapeOf(raws);
  try {
    return verifyTape(new OpenTape(store), { rebuilders });
  } finally {
    await store.close();
  }
}

const requestsOf = (report: ReturnType<typeof verifyTape>): RequestReport[] => report.sessions.flatMap((s) => s.requests);

describe('verification replay (SPEC 2.7)', function () {
  this.timeout(30_000);
  let dir: string;
  let raws: RawEntry[];
  let manifests: { entryId: number; manifest: ViewManifest }[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-verify-'));
    raws = await record(dir);
    manifests = raws.filter((r) => r.name === VIEW_ASSEMBLED).map((r) => ({ entryId: r.entryId, manifest: manifestOf(r) }));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the recorded session exercises what a rebuild must reproduce: tool pairs, a capped result, a checkpoint, a budget cut', () => {
    assert.strictEqual(manifests.length, 5);
    const reasons = new Set(manifests.flatMap((m) => m.manifest.included.map((i) => i.reason)));
    for (const r of ['system_prompt', 'input', 'history', 'tool_result_capped', 'checkpoint']) assert.ok(reasons.has(r), `a request includes an item for ${r}`);
    assert.ok(
      manifests.some((m) => m.manifest.excluded.some((e) => e.reason === 'out_of_budget')),
      'a request dropped history for the budget',
    );
  });

  it('SPEC 3.13: verification replay matches every request of a recorded session', async () => {
    const report = await verified(raws);
    assert.deepStrictEqual(
      requestsOf(report).map((r) => [r.entryId, r.status]),
      manifests.map((m) => [m.entryId, 'match']),
    );
    assert.strictEqual(report.ok, true);
    assert.deepStrictEqual(report.summary, { sessions: 1, requests: 5, match: 5, mismatch: 0, cannotRebuild: 0, merged: 0, integrityProblems: 0 });
    assert.deepStrictEqual(report.sessions[0].integrity, []);
    assert.strictEqual(report.note, null);
  });

  it('SPEC 3.13: a manifest naming another builder version cannot be rebuilt, and says which', async () => {
    const target = manifests[1];
    const report = await verified(withManifest(raws, target.entryId, (m) => (m.builderVersion = 'agent-tape/assemble@9')));
    const r = requestsOf(report).find((x) => x.entryId === target.entryId);
    assert.ok(r && r.status === 'cannot_rebuild');
    assert.strictEqual(r.unknown, 'builder');
    assert.match(r.reason, /builder agent-tape\/assemble@9 is unknown.*agent-tape\/assemble@2, agent-tape\/assemble@1/);
    assert.strictEqual(report.ok, false);
    assert.strictEqual(report.summary.cannotRebuild, 1);
    assert.strictEqual(report.summary.match, 4);

    const policy = await verified(withManifest(raws, target.entryId, (m) => (m.policy = { name: 'tape-context', version: 7 })));
    const p = requestsOf(policy).find((x) => x.entryId === target.entryId);
    assert.ok(p && p.status === 'cannot_rebuild' && p.unknown === 'policy');
    assert.match(p.reason, /policy tape-context v7 is unknown.*tape-context v1/);
  });

  it('SPEC 3.13: a changed builder under the same version is caught, naming the first differing item', async () => {
    // The builder of a future version that forgot to bump: it sends the tool results uncapped.
    const changed: Rebuilder = {
      ...CURRENT_REBUILDER,
      rebuild: (folds, facts) => {
        const { request, manifest: m } = CURRENT_REBUILDER.rebuild(folds, facts);
        return { request, manifest: { ...m, included: m.included.map((i) => (i.reason === 'tool_result_capped' ? { ...i, reason: 'history' } : i)) } };
      },
    };
    const report = await verified(raws, [changed]);
    const capped = manifests.filter((m) => m.manifest.included.some((i) => i.reason === 'tool_result_capped'));
    assert.ok(capped.length > 0);
    for (const r of requestsOf(report)) {
      const m = manifests.find((x) => x.entryId === r.entryId)?.manifest;
      assert.ok(m);
      const at = m.included.findIndex((i) => i.reason === 'tool_result_capped');
      if (at < 0) {
        assert.strictEqual(r.status, 'match');
        continue;
      }
      assert.ok(r.status === 'mismatch' && r.difference.what === 'item');
      assert.strictEqual(r.difference.position, at + 1);
      assert.deepStrictEqual(r.difference.fields, ['reason']);
    }
    assert.strictEqual(report.ok, false);
  });

  it('SPEC 3.13: one altered included entry is a mismatch naming the first differing item; the requests before it still match', async () => {
    const notes = raws.find((r) => r.kind === 'tool_result' && r.payload.includes('Build with esbuild'));
    assert.ok(notes);
    const altered = raws.map((r) => (r === notes ? { ...r, payload: r.payload.replace('Build with esbuild', 'Build with webpack') } : r));
    const report = await verified(altered);
    const byEntry = new Map(requestsOf(report).map((r) => [r.entryId, r]));
    for (const { entryId, manifest } of manifests) {
      const r = byEntry.get(entryId);
      assert.ok(r);
      const at = manifest.included.findIndex((i) => i.entryId === notes.entryId);
      if (at < 0) {
        assert.strictEqual(r.status, 'match', `request ${entryId} does not include the altered entry`);
        continue;
      }
      assert.ok(r.status === 'mismatch' && r.difference.what === 'item', describeRequest(r));
      assert.strictEqual(r.difference.position, at + 1);
      assert.deepStrictEqual(r.difference.fields, ['contentHash']);
      assert.strictEqual(r.difference.recorded.entryId, notes.entryId);
      assert.strictEqual(
        describeRequest(r),
        `${manifest.turnId}/${manifest.requestSeq} #${entryId} mismatch: item ${at + 1} (#${notes.entryId} tool) contentHash differs`,
      );
    }
    assert.ok(report.summary.mismatch >= 1);
    assert.strictEqual(report.ok, false);
  });

  it('a recording that sent fewer items than the rebuild is a count mismatch naming the extra item', async () => {
    const first = manifests[0];
    const shifted = withManifest(raws, first.entryId, (m) => (m.included = m.included.slice(0, -1)));
    const r = requestsOf(await verified(shifted)).find((x) => x.entryId === first.entryId);
    assert.ok(r && r.status === 'mismatch' && r.difference.what === 'count');
    assert.strictEqual(r.difference.onlyIn, 'rebuilt');
    assert.strictEqual(r.difference.position, first.manifest.included.length);
    const last = first.manifest.included.at(-1);
    assert.deepStrictEqual([r.difference.item.entryId, r.difference.item.contentHash], [last?.entryId, last?.contentHash]);
  });

  it('SPEC 3.12: a manifest edited on the tape is flagged by its manifestHash; one edited and resealed is caught by the rebuild', async () => {
    const target = manifests[2];
    const tampered = await verified(withManifest(raws, target.entryId, (m) => (m.included[0].tokens += 1), false));
    assert.strictEqual(tampered.ok, false);
    const problems = tampered.sessions[0].integrity;
    assert.deepStrictEqual(
      problems.map((p) => [p.check, p.entryId]),
      [['manifest_hash', target.entryId]],
    );
    assert.match(problems[0].message, /was altered: its manifestHash is [0-9a-f]{64}, its content hashes to [0-9a-f]{64}/);

    const resealed = await verified(withManifest(raws, target.entryId, (m) => (m.hashes.promptHash = 'f'.repeat(64))));
    assert.deepStrictEqual(resealed.sessions[0].integrity, []);
    const r = requestsOf(resealed).find((x) => x.entryId === target.entryId);
    assert.ok(r && r.status === 'mismatch' && r.difference.what === 'promptHash');
  });

  it('flags a second manifest for the same request and a manifest that is not one', async () => {
    const [a, b] = manifests;
    const dup = await verified(
      withManifest(raws, b.entryId, (m) => {
        m.turnId = a.manifest.turnId;
        m.requestSeq = a.manifest.requestSeq;
      }),
    );
    assert.deepStrictEqual(
      dup.sessions[0].integrity.map((p) => [p.check, p.entryId]),
      [['manifest_duplicate', b.entryId]],
    );

    const broken = raws.map((r) => (r.entryId === b.entryId ? { ...r, payload: JSON.stringify({ name: VIEW_ASSEMBLED, data: { viewId: 'x' } }) } : r));
    const report = await verified(broken);
    const r = requestsOf(report).find((x) => x.entryId === b.entryId);
    assert.ok(r && r.status === 'cannot_rebuild' && r.unknown === 'manifest');
    assert.deepStrictEqual(
      report.sessions[0].integrity.map((p) => p.check),
      ['manifest_invalid'],
    );
  });

  it('flags entry ids that are not dense (a damaged tape the store would never write)', async () => {
    const gap = raws.map((r, i) => ({ ...r, entryId: i < 3 ? r.entryId : r.entryId + 1 }));
    const store = await TapeStore.inMemory(gap.map((r) => rowTupleOf({ ...r, payload: JSON.parse(r.payload), meta: JSON.parse(r.meta) }, r.payload, r.meta)));
    try {
      const integrity = verifyTape(new OpenTape(store)).sessions[0].integrity;
      assert.deepStrictEqual(
        integrity.filter((p) => p.check === 'dense_ids').map((p) => p.entryId),
        [5],
      );
    } finally {
      await store.close();
    }
  });

  it('reports a merged manifest as merged (verified in its fork), not rebuilt', async () => {
    const target = manifests[1];
    const merged = raws.map((r) =>
      r.entryId === target.entryId ? { ...r, meta: JSON.stringify({ mergedFrom: { sessionId: `${SESSION}::fork::f1`, entryId: 9 } }) } : r,
    );
    const report = await verified(merged);
    const r = requestsOf(report).find((x) => x.entryId === target.entryId);
    assert.deepStrictEqual(r && r.status === 'merged' && r.from, { sessionId: `${SESSION}::fork::f1`, entryId: 9 });
    assert.strictEqual(report.ok, true);
    assert.strictEqual(report.summary.merged, 1);
  });

  it('a fork the agent works in verifies against its read-through context; after the merge its manifests are merged in the parent', async () => {
    const store = await tapeOf(raws);
    try {
      const { forkSessionId } = await forkSession(store, SESSION, { forkId: 'alt' });
      const ws = path.join(dir, 'ws');
      await new AgentSession({
        tape: new OpenTape(store),
        sessionId: forkSessionId,
        model: new ScriptedModel([[{ toolCall: { id: 'f1', name: 'read_file', arguments: { path: 'notes.md' } } }], [{ text: 'Still esbuild.' }]]),
        workspace: ws,
        permissions: { edits: false, commands: false },
        environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
      }).runTurn('Read the notes again', { signal: new AbortController().signal });
      const fork = verifyTape(new OpenTape(store), { sessionId: forkSessionId });
      assert.deepStrictEqual(
        requestsOf(fork).map((r) => r.status),
        ['match', 'match'],
      );
      // Its requests hold the parent's checkpoint, read through: the fork's view starts in the parent.
      const forkManifests = store.entries(forkSessionId, { kind: 'event', name: VIEW_ASSEMBLED }).map((e) => e.payload.data as ViewManifest);
      assert.ok(forkManifests.every((m) => m.anchorEntryId !== null && m.anchorEntryId <= raws.length));
      await mergeFork(store, forkSessionId);
      const parent = verifyTape(new OpenTape(store), { sessionId: SESSION });
      assert.deepStrictEqual(
        requestsOf(parent).map((r) => r.status),
        [...manifests.map(() => 'match'), 'merged', 'merged'],
      );
      assert.strictEqual(parent.ok, true);
    } finally {
      await store.close();
    }
  });

  it('a tape without manifests (an ingested one) passes, saying there was nothing to verify', async () => {
    const store = await TapeStore.inMemory();
    try {
      await store.appendMany('ingested', [message('u1', 'hello'), message('a1', 'hi', { role: 'assistant', orderSeq: 2 })]);
      const report = verifyTape(new OpenTape(store));
      assert.strictEqual(report.ok, true);
      assert.strictEqual(report.summary.requests, 0);
      assert.match(report.note ?? '', /nothing to verify/);
      assert.match(report.sessions[0].note ?? '', /nothing to verify/);
      assert.throws(() => verifyTape(new OpenTape(store), { sessionId: 'nope' }), /no session "nope"/);
    } finally {
      await store.close();
    }
  });
});
