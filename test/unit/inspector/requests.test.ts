import * as assert from 'assert';
import { requestDiff, requestItems } from '../../../src/inspector/requests';
import { requestDiff as requestDiffSchema, requestItem } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { verifyManifest } from '../../../src/tape/manifest';
import { event, fixtureLines, fixtureStore } from './helpers';

const S = 'inspector-sample';

describe('inspector requests', () => {
  it('the sample tape holds two sealed manifests, attempts and the markup the webview tests need', () => {
    const entries = fixtureLines().map((l) => JSON.parse(l) as { entryId: number; name: string; payload: { data?: unknown } });
    assert.ok(entries.length < 60);
    const manifests = entries.filter((e) => e.name === 'view/assembled');
    assert.deepStrictEqual(
      manifests.map((e) => e.entryId),
      [5, 19],
    );
    for (const m of manifests) assert.deepStrictEqual(verifyManifest(m.payload.data), { ok: true });
    assert.deepStrictEqual(
      entries.filter((e) => e.name === 'provider/attempt').map((e) => e.entryId),
      [9, 21],
    );
    const text = fixtureLines().join('\n');
    for (const s of ['<script>alert(1)</script>', '<img src=x onerror=alert(1)>', '](javascript:alert(1))']) assert.ok(text.includes(s), s);
  });

  it('one item per request, joined with its attempts', async () => {
    const store = await fixtureStore();
    const { items, skipped } = requestItems(store, S);
    for (const i of items) requestItem.parse(i);
    assert.deepStrictEqual(skipped, []);
    assert.deepStrictEqual(
      items.map(({ turnId: _t, ...rest }) => rest),
      [
        {
          source: 'manifest',
          entryId: 5,
          requestSeq: 1,
          model: 'test/scripted',
          assembledAt: 1767225600300,
          estimatedPrompt: 1700,
          included: 2,
          excluded: 0,
          anchorEntryId: null,
          attempts: 1,
          durationMs: 1200,
          inputTokens: 900,
          outputTokens: 60,
          cachedTokens: 0,
          cacheCreationTokens: null,
          promptTokens: 900,
          cacheHitShare: 0,
        },
        {
          source: 'manifest',
          entryId: 19,
          requestSeq: 1,
          model: 'test/scripted',
          assembledAt: 1767225602400,
          estimatedPrompt: 1736,
          included: 3,
          excluded: 0,
          anchorEntryId: 14,
          attempts: 1,
          durationMs: 600,
          inputTokens: 700,
          outputTokens: 20,
          cachedTokens: 512,
          cacheCreationTokens: null,
          promptTokens: 700,
          cacheHitShare: 512 / 700,
        },
      ],
    );
    const turns = fixtureLines()
      .map((l) => JSON.parse(l))
      .filter((e) => e.name === 'turn/start')
      .map((e) => e.payload.data.turnId);
    assert.deepStrictEqual(
      items.map((i) => i.turnId),
      turns,
    );
  });

  it('sums retried attempts; a manifest that does not read is skipped with its reason', async () => {
    const store = await TapeStore.inMemory();
    const manifest = JSON.parse(fixtureLines()[4]).payload.data;
    const turnId = manifest.turnId as string;
    await store.appendMany('s', [
      event('view/assembled', manifest),
      event('provider/attempt', { turnId, requestSeq: 1, attempt: 1, status: 'error', durationMs: 50 }),
      event('provider/attempt', {
        turnId,
        requestSeq: 1,
        attempt: 2,
        status: 'ok',
        durationMs: 70,
        usage: { inputTokens: 10, outputTokens: 2, cachedTokens: 4 },
      }),
      event('provider/attempt', { turnId, requestSeq: 2, attempt: 1, status: 'ok', durationMs: 5 }),
      event('view/assembled', { ...manifest, tokenBudget: 'lots' }),
    ]);
    const { items, skipped } = requestItems(store, 's');
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.attempts, i.durationMs, i.inputTokens, i.outputTokens, i.cachedTokens]),
      // No manifest records request 2: its attempt is a row of its own.
      [
        [2, 2, 120, 10, 2, 4],
        [5, 1, 5, null, null, null],
      ],
    );
    assert.strictEqual(skipped.length, 1);
    assert.strictEqual(skipped[0].entryId, 6);
    assert.match(skipped[0].reason, /entry 6 \(event view\/assembled\) holds no valid manifest in payload\.data: ✖ .*\n {2}→ at tokenBudget$/);
    assert.throws(() => requestDiff(store, 's', 2, 6), /holds no valid manifest/);
    assert.throws(() => requestDiff(store, 's', 2, 3), /is not a view\/assembled event/);
    assert.throws(() => requestDiff(store, 's', 2, 99), /has no entry 99/);
  });

  it("a session without manifests (another agent's, ingested) gets a row per model call from its attempts, with the source's figures", async () => {
    const store = await TapeStore.inMemory();
    const anthropic = { inputTokens: 12, outputTokens: 300, cachedTokens: 9_000, cacheCreationTokens: 988 };
    const openai = { inputTokens: 5_000, outputTokens: 40, cachedTokens: 4_000 };
    await store.appendMany('cc', [
      event('provider/attempt', { messageId: 'msg_1', model: 'claude-opus-4', usage: anthropic }),
      event('provider/attempt', { messageId: 'msg_2', model: 'gpt-5', usage: openai, durationMs: 900 }),
      event('provider/attempt', { messageId: 'msg_3' }),
      // Roo Code's figures: the cache inside the input, though cache writes are reported.
      event('provider/attempt', {
        model: 'claude-sonnet-4',
        usage: { inputTokens: 1_000, cachedTokens: 600, cacheCreationTokens: 100, inputIncludesCached: true },
      }),
    ]);
    const { items, skipped } = requestItems(store, 'cc');
    for (const i of items) requestItem.parse(i);
    assert.deepStrictEqual(skipped, []);
    assert.deepStrictEqual(
      items.map((i) => [
        i.source,
        i.entryId,
        i.model,
        i.turnId,
        i.requestSeq,
        i.estimatedPrompt,
        i.attempts,
        i.inputTokens,
        i.outputTokens,
        i.cachedTokens,
        i.cacheCreationTokens,
        i.promptTokens,
      ]),
      [
        ['attempt', 2, 'claude-opus-4', null, null, null, 1, 12, 300, 9_000, 988, 10_000],
        ['attempt', 3, 'gpt-5', null, null, null, 1, 5_000, 40, 4_000, null, 5_000],
        ['attempt', 4, 'unknown', null, null, null, 1, null, null, null, null, null],
        ['attempt', 5, 'claude-sonnet-4', null, null, null, 1, 1_000, null, 600, 100, 1_000],
      ],
    );
    // Anthropic-style usage counts cache reads apart from the input, OpenAI-style inside it.
    assert.deepStrictEqual(
      items.map((i) => i.cacheHitShare),
      [0.9, 0.8, null, 0.6],
    );
    assert.strictEqual(items[1].durationMs, 900);
  });

  it('an attempt no manifest records is a row of its own beside the manifest rows, in tape order', async () => {
    const store = await TapeStore.inMemory();
    const manifest = JSON.parse(fixtureLines()[4]).payload.data;
    await store.appendMany('s', [
      event('provider/attempt', { model: 'm', usage: { inputTokens: 3 } }),
      event('view/assembled', manifest),
      event('provider/attempt', { turnId: manifest.turnId, requestSeq: 1, usage: { inputTokens: 7 } }),
    ]);
    const { items } = requestItems(store, 's');
    assert.deepStrictEqual(
      items.map((i) => [i.source, i.entryId, i.inputTokens]),
      [
        ['attempt', 2, 3],
        ['manifest', 3, 7],
      ],
    );
  });

  it('the diff of the two requests: the checkpoint and the new input added, the first input removed', async () => {
    const store = await fixtureStore();
    const diff = requestDiff(store, S, 5, 19);
    requestDiffSchema.parse(diff);
    // By hand from the fixture's manifests: #5 includes [2 system 274, 4 user 20] (1700 estimated);
    // #19 includes [2 system 274, synthetic checkpoint 45, 18 user 11] (1736 estimated), anchor 14.
    assert.deepStrictEqual(diff, {
      a: 5,
      b: 19,
      added: [
        { entryId: null, role: 'user', reason: 'checkpoint', tokens: 45 },
        { entryId: 18, role: 'user', reason: 'input', tokens: 11 },
      ],
      removed: [{ entryId: 4, role: 'user', reason: 'input', tokens: 20, excludedAs: null }],
      reasonChanges: [],
      anchor: { from: null, to: 14 },
      policy: null,
      model: null,
      promptChanged: true,
      toolsChanged: false,
      tokens: { estimatedPrompt: { from: 1700, to: 1736, delta: 36 }, included: { from: 294, to: 330, delta: 36 } },
      unchangedPrefix: { items: 1, tokens: 274 },
    });
  });
});
