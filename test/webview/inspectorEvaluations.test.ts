import * as assert from 'assert';
import type { Browser, Page } from 'playwright-core';
import type { EvaluationReport, InspectorToHost } from '../../src/protocol/inspector';
import { launchChromium, openInspectorPage, posted, type StubWindow } from './inspectorPageFixture';

const S = 'chat-1';
const OLD = `${S}::eval::old`;
const NEW = `${S}::eval::new`;
const EVIL = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script>';

interface FakeWindow extends StubWindow {
  __pwned?: number;
}

/**
 * A fake host for session S with two requests and two evaluations of it: "new" (the newest: #101
 * agrees, #102 diverged with a tool call, #103 failed) and "old" (all agree). `readOnly` says
 * whether this window may write the tape.
 */
function fakeHost(o: { s: string; old: string; nu: string; evil: string; readOnly: boolean }): void {
  const w = window as unknown as FakeWindow;
  const reply = (m: unknown) => setTimeout(() => window.postMessage(m, '*'), 0);
  const t = (input: number, output: number) => ({ input, output, cached: 0 });
  const row = (entryId: number, status: EvaluationReport['rows'][number]['status'], reason: string | null, rerun: ReturnType<typeof t> | null) => ({
    entryId,
    turnId: 't1',
    requestSeq: entryId - 100,
    status,
    reason,
    textSimilarity: rerun === null ? null : status === 'agree' ? 0.9 : 0.1,
    recordedTokens: t(1000, 50),
    rerunTokens: rerun,
    recordedLatencyMs: 800,
    rerunLatencyMs: rerun === null ? null : 700,
  });
  const summary = (agree: number, diverged: number, failed: number) => ({ requests: agree + diverged + failed, agree, diverged, failed, notEvaluated: 0 });
  const reports: Record<string, EvaluationReport> = {
    [o.nu]: {
      evalSessionId: o.nu,
      evalId: 'new',
      model: 'agent-tape-fake/fake-1',
      startedAt: Date.UTC(2026, 0, 2),
      variation: '{}',
      complete: true,
      rows: [
        row(101, 'agree', null, t(1000, 52)),
        row(102, 'diverged', 'finished with tool calls, recorded text', t(1100, 30)),
        row(103, 'failed', 'the model failed', null),
      ],
      summary: { ...summary(1, 1, 1), tokenDelta: { input: 100, output: -18, cached: 0 }, latencyDeltaMs: -200, stopped: null },
      firstDivergence: {
        entryId: 102,
        status: 'diverged',
        reason: 'finished with tool calls, recorded text',
        recorded: { finish: 'text', text: o.evil, toolCalls: [], tokens: t(1000, 50), latencyMs: 800 },
        rerun: { finish: 'tool_calls', text: '', toolCalls: ['read_file {"path":"notes.md"}'], tokens: t(1100, 30), latencyMs: 700 },
      },
    },
    [o.old]: {
      evalSessionId: o.old,
      evalId: 'old',
      model: 'agent-tape-fake/fake-1',
      startedAt: Date.UTC(2026, 0, 1),
      variation: '{"systemPrompt":"be brief"}',
      complete: true,
      rows: [row(101, 'agree', null, t(1000, 50))],
      summary: { ...summary(1, 0, 0), tokenDelta: t(0, 0), latencyDeltaMs: 0, stopped: null },
      firstDivergence: null,
    },
  };
  const request = (n: number) => ({
    source: 'manifest' as const,
    entryId: 100 + n,
    turnId: 't1',
    requestSeq: n,
    model: 'agent-tape-fake/fake-1',
    assembledAt: n,
    estimatedPrompt: 1000,
    included: 3,
    excluded: 0,
    anchorEntryId: null,
    attempts: 1,
    durationMs: 800,
    inputTokens: 1000,
    outputTokens: 50,
    cachedTokens: 0,
    cacheCreationTokens: null,
    promptTokens: 1000,
    cacheHitShare: 0,
  });
  const answer = (m: InspectorToHost) => {
    if (m.type === 'ready') {
      reply({
        type: 'source',
        label: 'Workspace tape',
        readOnly: o.readOnly,
        headEntryId: 110,
        sessionId: o.s,
        sessions: [{ sessionId: o.s, title: 'read the notes', entryCount: 110, lastCreatedAt: 1 }],
      });
      return reply({ type: 'transcript', sessionId: o.s, headEntryId: 110, offset: 0, total: 0, items: [] });
    }
    if (m.type !== 'request') return undefined;
    const ok = (result: unknown) => reply({ type: 'reply', id: m.id, ok: true, result });
    switch (m.method) {
      case 'requests':
        return ok({ sessionId: o.s, items: [request(1), request(2)] });
      case 'diff':
        return reply({ type: 'reply', id: m.id, ok: false, error: 'no diff in this test' });
      case 'evaluations':
        return ok({
          sessionId: o.s,
          items: [o.nu, o.old].map((id) => ({
            evalSessionId: id,
            evalId: reports[id].evalId,
            model: reports[id].model,
            startedAt: reports[id].startedAt,
            complete: true,
            summary: {
              requests: reports[id].summary.requests,
              agree: reports[id].summary.agree,
              diverged: reports[id].summary.diverged,
              failed: reports[id].summary.failed,
              notEvaluated: 0,
            },
          })),
        });
      case 'evaluation':
        return ok({ sessionId: o.s, report: reports[(m.params as { evalSessionId: string }).evalSessionId] });
      default:
        return undefined;
    }
  };
  w.host = answer;
}

const commands = async (page: Page) => (await posted(page)).filter((m) => m.type === 'command');

async function openPage(browser: Browser, readOnly: boolean, errors: string[]): Promise<Page> {
  const { page } = await openInspectorPage(browser, {
    host: fakeHost,
    arg: { s: S, old: OLD, nu: NEW, evil: EVIL, readOnly },
    viewport: { width: 750, height: 800 },
    errors,
  });
  await page.waitForSelector('vscode-tab-header[data-view=evaluations]');
  return page;
}

describe('Tape Inspector webview in Chromium: re-run and evaluations', function () {
  let browser: Browser;
  let page: Page;
  const errors: string[] = [];

  before(async () => {
    browser = await launchChromium();
    page = await openPage(browser, false, errors);
  });
  after(async () => {
    assert.deepStrictEqual(errors, []);
    await browser?.close();
  });

  it('"Re-run…" on a request is reached by Tab and asks the host to re-run that request of the session shown', async () => {
    await page.locator('vscode-tab-header[data-view=requests]').click();
    await page.waitForSelector('#requests-table tr[data-entry-id="102"] vscode-button.rerun');
    await page.locator('#requests-table tr[data-entry-id="102"] vscode-checkbox').focus();
    for (let i = 0; i < 5 && !(await page.evaluate(() => document.activeElement?.classList.contains('rerun'))); i++) await page.keyboard.press('Tab');
    assert.strictEqual(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'Re-run request #102…');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => (window as unknown as FakeWindow).posted.some((m) => m.type === 'command'));
    assert.deepStrictEqual(await commands(page), [{ type: 'command', command: 'agentTape.rerunRequest', args: [S, 102] }]);
  });

  it('the Evaluations view opens the newest evaluation: a row per request with its status in words, the summary and the plot', async () => {
    await page.locator('vscode-tab-header[data-view=evaluations]').click();
    await page.waitForSelector('#evaluation-table tbody tr');
    assert.deepStrictEqual(await page.locator('.evaluation-list li').allTextContents(), [
      'agent-tape-fake/fake-1 · 2026-01-02 00:00:00Z 3 requests: 1 agree, 1 diverged, 1 failed',
      'agent-tape-fake/fake-1 · 2026-01-01 00:00:00Z 1 requests: 1 agree, 0 diverged, 0 failed',
    ]);
    assert.strictEqual(await page.locator('.evaluation-list li[data-eval="chat-1::eval::new"] button').getAttribute('aria-current'), 'true');
    assert.deepStrictEqual(await page.locator('#evaluation-table tbody .badge').allTextContents(), ['agree', 'diverged', 'failed']);
    assert.match(
      (await page.locator('.evaluation-summary').textContent()) ?? '',
      /3 requests: 1 agree, 1 diverged, 1 failed\. Tokens \+100 in, -18 out; latency -200 ms/,
    );
    const plot = page.locator('svg.evaluation-plot');
    assert.match(
      (await plot.getAttribute('aria-label')) ?? '',
      /^Agreement over 3 requests: 1 agree, 1 diverged, 1 failed, the first at #102\. Token deltas .* input \+100, output -18/,
    );
    assert.deepStrictEqual(
      [await plot.locator('.mark-agree').count(), await plot.locator('.mark-diverged').count(), await plot.locator('.mark-failed').count()],
      [1, 1, 1],
      'one mark per request, its shape by status',
    );
  });

  it('shows the first divergence side by side, the tape text as text (markup never runs)', async () => {
    const section = page.locator('.first-divergence');
    assert.strictEqual(await section.locator('h3').textContent(), 'First divergence: request #102 (diverged)');
    assert.strictEqual(await section.locator('[data-side=recorded] .answer-text').textContent(), EVIL);
    assert.deepStrictEqual(await section.locator('[data-side="re-run"] .tool-calls li').allTextContents(), ['read_file {"path":"notes.md"}']);
    assert.strictEqual(await section.locator('img').count(), 0);
    assert.strictEqual(await page.evaluate(() => (window as unknown as FakeWindow).__pwned), undefined);
  });

  it('another evaluation opens from the list by keyboard; one with no divergence says so, and names its variation', async () => {
    await page.locator('.evaluation-list li[data-eval="chat-1::eval::old"] button').focus();
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelector('.first-divergence')?.textContent === 'Every request evaluated agrees with the recording.');
    assert.match((await page.locator('.evaluation-report').textContent()) ?? '', /Variation: \{"systemPrompt":"be brief"\}/);
  });

  it('"Evaluate with a model…" asks the host to evaluate the session shown', async () => {
    await page.locator('.evaluations-view vscode-button.evaluate').click();
    await page.waitForFunction(() => (window as unknown as FakeWindow).posted.filter((m) => m.type === 'command').length === 2);
    assert.deepStrictEqual((await commands(page))[1], { type: 'command', command: 'agentTape.evaluateSession', args: [S] });
  });

  it("the host's showEvaluation opens the Evaluations view on that evaluation, from another view", async () => {
    await page.locator('vscode-tab-header[data-view=requests]').click();
    await page.evaluate(([sessionId, evalSessionId]) => window.postMessage({ type: 'showEvaluation', sessionId, evalSessionId }, '*'), [S, NEW]);
    await page.waitForFunction(
      () => document.querySelector('.evaluation-list li[data-eval="chat-1::eval::new"] button')?.getAttribute('aria-current') === 'true',
    );
    assert.strictEqual(await page.locator('vscode-tabs').getAttribute('selected-index'), '6');
    await page.waitForSelector('.first-divergence h3');
  });

  it('offers neither Re-run nor Evaluate where the tape is read-only', async () => {
    const readOnly = await openPage(browser, true, errors);
    await readOnly.locator('vscode-tab-header[data-view=requests]').click();
    await readOnly.waitForSelector('#requests-table tr[data-entry-id="102"]');
    assert.strictEqual(await readOnly.locator('vscode-button.rerun').count(), 0);
    await readOnly.locator('vscode-tab-header[data-view=evaluations]').click();
    await readOnly.waitForSelector('#evaluation-table');
    assert.strictEqual(await readOnly.locator('vscode-button.evaluate').count(), 0);
    await readOnly.close();
  });
});
