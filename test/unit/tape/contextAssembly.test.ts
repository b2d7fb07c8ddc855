import * as assert from 'assert';
import fc from 'fast-check';
import { ContextSelectionError } from '../../../src/tape/context';
import { assembleFromCache, assembleRequest, type AssemblyInput, type RequestFacts } from '../../../src/tape/contextAssembly';
import { CONTEXT_TOOL_RESULT_MAX_BYTES, reserveFor, TAPE_CONTEXT_POLICY } from '../../../src/tape/contextPolicy';
import type { Entry } from '../../../src/tape/entry';
import { foldAll, foldRowOf, type FoldRow } from '../../../src/tape/fold';
import { FoldCache, type FoldSource } from '../../../src/tape/foldCache';
import { verifyManifest, viewAssembledEntry } from '../../../src/tape/manifest';
import type { ModelMessage, ToolDefinition } from '../../../src/tape/modelRequest';
import { randomTape, splitPoints } from './randomTape';
import { TapeBuilder } from './tapeBuilder';

// One token per character: budgets in the tests can be computed by hand.
const countTokens = (x: string | readonly ModelMessage[]): number => (typeof x === 'string' ? x.length : x.reduce((n, m) => n + m.content.length, 0));
const TOOLS: ToolDefinition[] = [{ name: 'read_file', description: 'Reads a file.', parameters: { type: 'object', properties: { path: { type: 'string' } } } }];
const TOOLS_TOKENS = JSON.stringify(TOOLS).length;

function facts(t: TapeBuilder, contextWindow = 100_000, over: Partial<RequestFacts> = {}): RequestFacts {
  return {
    sessionId: t.sessionId,
    turnId: 'turn1',
    requestSeq: 0,
    viewId: 'view1',
    assembledAt: 1_700_000_000_000,
    getEntry: t.get,
    model: { vendor: 'test', id: 'model', contextWindow, maxOutput: 100 },
    tools: TOOLS,
    countTokens,
    ...over,
  };
}

function inputOf(t: TapeBuilder, contextWindow?: number, over: Partial<RequestFacts> = {}): AssemblyInput {
  const view = foldAll(t.rows(), { includePending: false });
  return { ...facts(t, contextWindow, over), view, latestEntryId: view.headEntryId };
}

/** The window that leaves exactly `budget` tokens for the prompt (tools included). */
function windowFor(budget: number): number {
  for (let w = budget + 100; ; w++) if (w - 100 - reserveFor(w) === budget) return w;
}

/** Every tool result follows its call and every call is answered: no pair is split. */
function assertPairsWhole(messages: readonly ModelMessage[]): void {
  const calls = messages.filter((m) => m.role === 'assistant' && m.toolCallId !== undefined).map((m) => m.toolCallId);
  const results = messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
  assert.deepStrictEqual([...results].sort(), [...calls].sort());
  messages.forEach((m, i) => {
    if (m.role === 'tool')
      assert.ok(
        messages.slice(0, i).some((c) => c.role === 'assistant' && c.toolCallId === m.toolCallId),
        `result ${m.toolCallId} before its call`,
      );
  });
}

describe('assembleRequest (tape-context v1)', () => {
  it('sends the system prompt, the checkpoint, the history after the cursor and the new input, in that order', () => {
    const t = new TapeBuilder();
    t.anchor('session/start', { sessionId: 's1' });
    const sys = t.system('You are a coding agent.');
    t.user('u1', 'first question');
    t.assistant('a1', 'looking');
    t.call('a1', 'c1', 'read_file', { path: 'a.ts' });
    t.result('a1', 'c1', 'read_file', 'old contents');
    const anchor = t.anchor('compaction/manual', { summary: 'The user asked a first question.', cursorOrderSeq: 2 });
    const u2 = t.user('u2', 'second question');
    const a2 = t.assistant('a2', 'second answer');
    const u3 = t.user('u3', 'third question');
    const { request, manifest } = assembleRequest(inputOf(t));

    assert.deepStrictEqual(
      request.messages.map((m) => [m.role, m.content.split('\n')[0]]),
      [
        ['system', 'You are a coding agent.'],
        ['user', `[Checkpoint compaction/manual at entry ${anchor.entryId}: the conversation before this point is summarised here.]`],
        ['user', 'second question'],
        ['assistant', 'second answer'],
        ['user', 'third question'],
      ],
    );
    assert.ok(request.messages[1].content.includes('The user asked a first question.'));
    assert.deepStrictEqual(request.tools, TOOLS);
    assert.strictEqual(request.maxOutput, 100);
    assert.deepStrictEqual(
      manifest.included.map((i) => [i.entryId, i.source, i.reason]),
      [
        [sys.entryId, 'tape', 'system_prompt'],
        [null, 'synthetic', 'checkpoint'],
        [u2.entryId, 'tape', 'history'],
        [a2.entryId, 'tape', 'history'],
        [u3.entryId, 'tape', 'input'],
      ],
    );
    assert.strictEqual(manifest.anchorEntryId, anchor.entryId);
    // What the cursor leaves out is implied by the anchor, not listed.
    assert.deepStrictEqual(manifest.excluded, []);
    assert.deepStrictEqual(manifest.policy, TAPE_CONTEXT_POLICY);
    assert.deepStrictEqual(manifest.model, { vendor: 'test', id: 'model' });
    assert.strictEqual(manifest.latestEntryId, u3.entryId);
    const messageTokens = request.messages.reduce((n, m) => n + m.content.length, 0);
    assert.deepStrictEqual(manifest.tokenBudget, { contextWindow: 100_000, maxOutput: 100, reserve: 1024, estimatedPrompt: messageTokens + TOOLS_TOKENS });
    assert.deepStrictEqual(verifyManifest(manifest), { ok: true });
    assert.doesNotThrow(() => viewAssembledEntry(manifest));
  });

  describe('fitting the input budget', () => {
    function longTape() {
      const t = new TapeBuilder();
      t.anchor('session/start', { sessionId: 's1' });
      t.system('S'.repeat(10));
      const u1 = t.user('u1', 'a'.repeat(100));
      const a1 = t.assistant('a1', 'b'.repeat(100));
      const c1 = t.call('a1', 'c1', 'read_file', { path: 'x' });
      const r1 = t.result('a1', 'c1', 'read_file', 'c'.repeat(100));
      const u2 = t.user('u2', 'd'.repeat(100));
      const a2 = t.assistant('a2', 'e'.repeat(100));
      const u3 = t.user('u3', 'f'.repeat(100));
      const a3 = t.assistant('a3', 'g'.repeat(100));
      const c3 = t.call('a3', 'c3', 'read_file', { path: 'y' });
      const r3 = t.result('a3', 'c3', 'read_file', 'h'.repeat(100));
      return { t, u1, a1, c1, r1, u2, a2, u3, a3, c3, r3 };
    }

    it('keeps everything that fits', () => {
      const { t } = longTape();
      const { request, manifest } = assembleRequest(inputOf(t));
      assert.strictEqual(request.messages.length, 11);
      assert.deepStrictEqual(manifest.excluded, []);
    });

    it('drops the oldest groups first, a message with its calls and their results, and records each entry dropped', () => {
      const { t, u1, a1, c1, r1, u2, a2 } = longTape();
      const whole = assembleRequest(inputOf(t)).manifest.tokenBudget.estimatedPrompt;
      const callTokens = JSON.stringify({ path: 'x' }).length;
      // One token short of keeping a1's group: u1 and a1 (with its call and result) must go, u2 stays.
      const budget = whole - 100 - (200 + callTokens) + 0;
      const { request, manifest } = assembleRequest(inputOf(t, windowFor(budget)));
      assert.deepStrictEqual(
        manifest.excluded,
        [u1, a1, c1, r1].map((e) => ({ entryId: e.entryId, reason: 'out_of_budget' })),
      );
      assert.deepStrictEqual(
        manifest.included.slice(1, 3).map((i) => i.entryId),
        [u2.entryId, a2.entryId],
      );
      assert.ok(manifest.tokenBudget.estimatedPrompt <= budget);
      assert.strictEqual(manifest.tokenBudget.estimatedPrompt, whole - 100 - (200 + callTokens));
      assertPairsWhole(request.messages);

      const oneLess = assembleRequest(inputOf(t, windowFor(budget - 1))).manifest;
      assert.deepStrictEqual(
        oneLess.excluded.map((e) => e.entryId),
        [u1, a1, c1, r1, u2].map((e) => e.entryId),
      );
    });

    it('never drops the system prompt or the last user message, even when nothing else is left', () => {
      const { t, u1, a1, c1, r1, u2, a2, u3, a3, c3, r3 } = longTape();
      const { request, manifest } = assembleRequest(inputOf(t, windowFor(50)));
      assert.deepStrictEqual(
        request.messages.map((m) => m.content),
        ['S'.repeat(10), 'f'.repeat(100)],
      );
      assert.deepStrictEqual(
        manifest.included.map((i) => i.reason),
        ['system_prompt', 'input'],
      );
      assert.strictEqual(manifest.included[1].entryId, u3.entryId);
      // Oldest first: the groups before the input, then the round after it.
      assert.deepStrictEqual(
        manifest.excluded,
        [u1, a1, c1, r1, u2, a2, a3, c3, r3].map((e) => ({ entryId: e.entryId, reason: 'out_of_budget' })),
      );
      // It does not fit, and the manifest says so.
      assert.ok(manifest.tokenBudget.estimatedPrompt > 50);
      assert.deepStrictEqual(verifyManifest(manifest), { ok: true });
    });

    it('never drops the checkpoint', () => {
      const { t } = longTape();
      t.anchor('handoff/review', { summary: 'Reviewed.' });
      t.user('u4', 'i'.repeat(100));
      const { manifest } = assembleRequest(inputOf(t, windowFor(10)));
      assert.deepStrictEqual(
        manifest.included.map((i) => i.reason),
        ['system_prompt', 'checkpoint', 'input'],
      );
    });
  });

  it('caps a tool result in the context and keeps it whole on the tape', () => {
    const t = new TapeBuilder();
    t.user('u1', 'read it');
    t.assistant('a1', '');
    t.call('a1', 'c1', 'read_file', { path: 'big.txt' });
    // Four bytes a character, so a cut at an arbitrary byte would split one.
    const output = 'x' + '😀'.repeat(10_000);
    const result = t.result('a1', 'c1', 'read_file', output);
    t.call('a1', 'c2', 'read_file', { path: 'small.txt' });
    t.result('a1', 'c2', 'read_file', 'small');
    const { request, manifest } = assembleRequest(inputOf(t));

    const sent = request.messages.find((m) => m.role === 'tool' && m.toolCallId === 'c1') as ModelMessage;
    const bytes = Buffer.byteLength(sent.content, 'utf8');
    assert.ok(bytes <= CONTEXT_TOOL_RESULT_MAX_BYTES && bytes > CONTEXT_TOOL_RESULT_MAX_BYTES - 200, `${bytes} bytes`);
    assert.strictEqual(Buffer.from(sent.content, 'utf8').toString('utf8'), sent.content, 'no character is split');
    assert.ok(sent.content.startsWith('x😀😀'));
    assert.ok(sent.content.endsWith(`the whole output is on the tape at entry ${result.entryId}]`), sent.content.slice(-120));
    assert.strictEqual(t.get(result.entryId).payload.output, output);
    const reasons = new Map(manifest.included.map((i) => [i.entryId, i.reason]));
    assert.strictEqual(reasons.get(result.entryId), 'tool_result_capped');
    assert.strictEqual(request.messages.find((m) => m.toolCallId === 'c2' && m.role === 'tool')?.content, 'small');
  });

  it('answers an interrupted call in the context only', () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', '');
    t.call('a1', 'c1', 'read_file', { path: 'a' });
    const { request, manifest } = assembleRequest(inputOf(t));
    assert.strictEqual(request.messages.at(-1)?.role, 'tool');
    assert.deepStrictEqual(manifest.included.at(-1)?.reason, 'interrupted');
    assert.strictEqual(t.entries.length, 3);
  });

  describe('determinism (SPEC 3.12)', () => {
    const build = (): TapeBuilder => {
      const t = new TapeBuilder();
      t.anchor('session/start', { sessionId: 's1' });
      t.system('be brief');
      t.user('u1', 'hi');
      t.assistant('a1', 'hello');
      t.call('a1', 'c1', 'read_file', { path: 'a.ts', startLine: 1 });
      t.result('a1', 'c1', 'read_file', 'contents');
      t.user('u2', 'thanks');
      return t;
    };

    it('SPEC 3.12: the same tape prefix gives the same request and hashes; assembledAt changes no hash', () => {
      const a = assembleRequest(inputOf(build()));
      const b = assembleRequest(inputOf(build(), undefined, { assembledAt: 1_800_000_000_000 }));
      assert.deepStrictEqual(b.request, a.request);
      assert.deepStrictEqual(b.manifest.hashes, a.manifest.hashes);
      assert.deepStrictEqual({ ...b.manifest, assembledAt: 0 }, { ...a.manifest, assembledAt: 0 });
      assert.notStrictEqual(b.manifest.assembledAt, a.manifest.assembledAt);
    });

    it('a later entry does not change the request built from the prefix before it', () => {
      const t = build();
      const before = assembleRequest(inputOf(t));
      const prefix = t.rows();
      t.assistant('a2', 'you are welcome');
      const view = foldAll(prefix, { includePending: false });
      const again = assembleRequest({ ...facts(t), view, latestEntryId: view.headEntryId });
      assert.deepStrictEqual(again, before);
      assert.notStrictEqual(assembleRequest(inputOf(t)).manifest.hashes.promptHash, before.manifest.hashes.promptHash);
    });

    it('other tools change the toolsHash and the manifestHash, not the promptHash', () => {
      const a = assembleRequest(inputOf(build())).manifest;
      const b = assembleRequest(inputOf(build(), undefined, { tools: [] })).manifest;
      assert.strictEqual(b.hashes.promptHash, a.hashes.promptHash);
      assert.notStrictEqual(b.hashes.toolsHash, a.hashes.toolsHash);
      assert.notStrictEqual(b.hashes.manifestHash, a.hashes.manifestHash);
    });
  });

  it('refuses a range that ends before the view head, which only the cache path can fold', () => {
    const t = new TapeBuilder();
    t.user('u1', 'a');
    t.anchor('handoff/one', { summary: 's' });
    t.user('u2', 'b');
    assert.throws(() => assembleRequest(inputOf(t, undefined, { selector: { kind: 'between', from: 'handoff/one', to: 2 } })), ContextSelectionError);
    const cache = new FoldCache(t);
    const { request } = assembleFromCache(cache, facts(t, undefined, { selector: { kind: 'between', from: 'handoff/one', to: 2 } }));
    assert.deepStrictEqual(
      request.messages.map((m) => m.role),
      ['user'],
    );
  });

  it('assembling from the incremental fold equals assembling from a full fold, on random tapes and budgets', () => {
    fc.assert(
      fc.property(
        randomTape(60).chain((entries) => fc.tuple(fc.constant(entries), splitPoints(entries.length), fc.integer({ min: 60, max: 3_000 }))),
        ([entries, cuts, contextWindow]) => {
          const rows: FoldRow[] = entries.map(foldRowOf);
          let head = 0;
          const source: FoldSource = { generation: () => 1, headEntryId: () => head, foldRows: (_s, after) => rows.slice(after, head) };
          const cache = new FoldCache(source);
          const getEntry = (id: number): Entry => entries[id - 1];
          for (const cut of [...cuts, entries.length]) {
            head = cut;
            const f: RequestFacts = { ...facts(new TapeBuilder(), contextWindow), getEntry, requestSeq: cut };
            const incremental = assembleFromCache(cache, f);
            const view = foldAll(rows.slice(0, cut), { includePending: false });
            const full = assembleRequest({ ...f, view, latestEntryId: cut });
            assert.deepStrictEqual(incremental, full);
            assert.deepStrictEqual(verifyManifest(incremental.manifest), { ok: true });
            assertPairsWhole(incremental.request.messages);
            const { included, excluded } = incremental.manifest;
            // The input is the last user message sent, and it is always sent when the window has one.
            const lastUser = [...included].reverse().find((i) => i.role === 'user' && i.source === 'tape');
            assert.deepStrictEqual(
              included.filter((i) => i.reason === 'input'),
              lastUser === undefined ? [] : [lastUser],
            );
            // Over budget only when all that may be dropped was: what is left is the kept minimum.
            if (incremental.manifest.tokenBudget.estimatedPrompt > contextWindow - 100 - reserveFor(contextWindow)) {
              const k = included.findIndex((i) => i.reason === 'input');
              assert.ok(included.slice(0, k < 0 ? included.length : k).every((i) => i.reason === 'system_prompt' || i.reason === 'checkpoint'));
              if (k >= 0) assert.ok(incremental.request.messages.slice(k + 1).every((m) => m.toolCallId !== undefined));
            }
            assert.ok(included.every((i) => i.entryId === null || !excluded.some((e) => e.entryId === i.entryId)));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
