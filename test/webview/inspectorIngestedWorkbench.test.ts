import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { FrameLocator, Page, Request } from 'playwright-core';
import { CC_SESSION, claudeCodeRecords, claudeCodeSubagent, jsonl, writeClaudeCode } from '../unit/ingest/fixtures';
import { closeWorkbench, openTapeFromExplorer, openWorkbench, root, shots, useTheme, visibleWebview, type Workbench } from './workbenchDriver';

const CLI = path.join(root, 'dist/cli.js');
const TAPE = 'claude-session.tape.sqlite';
const SESSION = `claude-code:${CC_SESSION}`;
const ANSWER = "I'll look at **the failing test** in `a.test.ts` first. ![diagram](https://example.com/agent-tape-diagram.png)";
const SUMMARY = 'Summary of the conversation:\n1. The test in a.test.ts failed.\n2. The fix: compare with toEqual.\n3. Next: add docs.';
const TASK = 'Find the flaky assertion';

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens?: number;
}
interface SourceRecord {
  uuid?: string;
  message?: { id?: string; content?: unknown; usage?: Usage };
}

/**
 * The repository's Claude Code transcript (a message split per block, a Task subagent, a
 * compaction) with what a real one carries: Markdown in the assistant's words, a Task with its
 * description, a summary of several lines.
 */
function transcript(): SourceRecord[] {
  return (claudeCodeRecords() as SourceRecord[]).map((r) => {
    if (!r.message) return r;
    if (r.uuid === 'a2') return { ...r, message: { ...r.message, content: [{ type: 'text', text: ANSWER }] } };
    if (r.uuid === 'a5')
      return {
        ...r,
        message: {
          ...r.message,
          content: [{ type: 'tool_use', id: 'toolu_3', name: 'Task', input: { description: TASK, prompt: 'Investigate', subagent_type: 'general-purpose' } }],
        },
      };
    if (r.uuid === 's1') return { ...r, message: { ...r.message, content: SUMMARY } };
    return r;
  });
}

/** Claude Code writes a message once per content block, each with the usage so far: the last one is the call's. */
function firstCallUsage(records: readonly SourceRecord[]): Usage {
  const first = records.find((r) => r.message?.usage)?.message?.id;
  const usage = records.filter((r) => r.message?.id === first).at(-1)?.message?.usage;
  assert.ok(usage, 'the transcript has a model call');
  return usage;
}

function agentTape(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
  assert.strictEqual(r.status, 0, `agent-tape ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/**
 * A request that leaves the machine: to any host but the server's, or to VS Code's resource host
 * (which its service worker answers from the server) for anything but the extension's own files.
 */
const remote = (url: string): boolean => {
  const u = new URL(url);
  if (!/^(https?|wss?):$/.test(u.protocol) || u.hostname === '127.0.0.1') return false;
  return !(u.hostname.endsWith('.vscode-resource.vscode-cdn.net') && decodeURIComponent(u.pathname).startsWith(`${root}/`));
};

/** The subagent's records within its Task call (after it, at 8 s, before its result, at 10 s), as Claude Code writes them. */
function subagentDuringTask(): object[] {
  return claudeCodeSubagent().map((r, i) => ({ ...r, timestamp: new Date(Date.UTC(2026, 0, 2, 3, 4, 8, 300 + 300 * i)).toISOString() }));
}

/**
 * Another agent's session as a user first sees it: a Claude Code transcript ingested with the CLI
 * into a tape in the workspace, opened from the Explorer, each view of the inspector read as shown.
 */
describe('the Tape Inspector in the VS Code web workbench: an ingested Claude Code session', () => {
  let workbench: Partial<Workbench> = {};
  let page: Page;
  const records = transcript();
  let attempts = 0;
  const requested: string[] = [];

  before(async () => {
    workbench = await openWorkbench({
      testModel: false,
      prepare: (dir) => {
        const source = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingested-'));
        const file = writeClaudeCode(source, records as object[]);
        fs.writeFileSync(path.join(source, CC_SESSION, 'subagents', 'agent-abc.jsonl'), jsonl(subagentDuringTask()));
        const tape = path.join(dir, TAPE);
        agentTape(['ingest', file, tape]);
        attempts = agentTape(['log', tape, '--session', SESSION, '--name', 'provider/attempt', '--json']).trim().split('\n').length;
        fs.rmSync(source, { recursive: true, force: true });
      },
    });
    ({ page } = workbench as Workbench);
    // Webview frames are the page's frames: their requests come here too.
    page.on('request', (r: Request) => requested.push(r.url()));
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed')
      await page.screenshot({ path: path.join(shots, `workbench-ingested-failed-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}.png`) });
  });
  after(() => closeWorkbench(workbench));

  const inspector = (): FrameLocator => visibleWebview(page);
  const panel = (view: string) => inspector().locator(`vscode-tab-panel[data-view="${view}"]:visible`);
  async function show(view: string): Promise<void> {
    await inspector().locator(`vscode-tab-header[data-view="${view}"]`).click();
    await panel(view).waitFor();
  }

  it('opened from the Explorer: Markdown as elements, no image fetched; a request row per model call with its tokens; the summary as text; previews; the subagent by its task', async () => {
    await openTapeFromExplorer(page, TAPE);
    const item = inspector().locator('.transcript-item', { hasText: "I'll look at" });
    await item.waitFor({ timeout: 60_000 });
    await item.locator('.text.md strong', { hasText: 'the failing test' }).waitFor({ timeout: 30_000 });
    assert.strictEqual(await item.locator('.text.md code').first().textContent(), 'a.test.ts');
    assert.strictEqual(await item.locator('img').count(), 0);
    assert.match(
      (await item.locator('.text.md').textContent()) ?? '',
      /diagram.*https:\/\/example\.com\/agent-tape-diagram\.png/,
      'the image as its alt text and address',
    );

    await show('requests');
    const rows = panel('requests').locator('#requests-table tbody tr');
    await rows.first().waitFor({ timeout: 30_000 });
    assert.ok(attempts > 1, `the tape has ${attempts} model calls`);
    assert.strictEqual(await rows.count(), attempts, 'a row per model call');
    const head = await panel('requests')
      .locator('#requests-table thead th')
      .evaluateAll((ths) => ths.map((t) => t.textContent ?? ''));
    const cells = await rows
      .first()
      .locator('th, td')
      .evaluateAll((cs) => cs.map((c) => c.textContent ?? ''));
    const cell = (name: string) => Number(cells[head.indexOf(name)].replace(/,/g, ''));
    const usage = firstCallUsage(records);
    assert.deepStrictEqual(
      { input: cell('Input'), cached: cell('Cached'), output: cell('Output') },
      // The tape's input counts the cache, which Anthropic's input_tokens leaves out (src/ingest/tapeUsage.ts).
      {
        input: usage.input_tokens + usage.cache_read_input_tokens + (usage.cache_creation_input_tokens ?? 0),
        cached: usage.cache_read_input_tokens,
        output: usage.output_tokens,
      },
      `the first row ${JSON.stringify(cells)}`,
    );

    await show('anchors');
    const summary = panel('anchors').locator('.anchor-summary .anchor-summary-text');
    await summary.waitFor({ timeout: 30_000 });
    const shown = (await summary.textContent()) ?? '';
    assert.ok(shown.includes('Summary of the conversation'), shown);
    assert.ok(shown.includes('The fix: compare with toEqual.'), shown);
    assert.ok(!shown.includes('\\n'), `no escape sequences: ${shown}`);
    assert.strictEqual(await summary.locator('li').count(), 3, 'the summary’s numbered lines as a list');

    await show('entries');
    const previews = panel('entries').locator('[data-entry-id] .col-summary');
    await previews.first().waitFor({ timeout: 30_000 });
    const seen = await previews.evaluateAll((els) => els.map((e) => ({ text: e.textContent ?? '', width: e.getBoundingClientRect().width })));
    const answerRow = seen.find((p) => p.text.includes('the failing test'));
    assert.ok(answerRow && answerRow.width > 0, `the answer's preview is visible: ${JSON.stringify(seen)}`);
    assert.ok(
      seen.filter((p) => p.text.trim() !== '').every((p) => p.width > 0),
      `every preview has width: ${JSON.stringify(seen)}`,
    );

    await show('lineage');
    const child = panel('lineage').locator('.lineage-children .child');
    await child.first().waitFor({ timeout: 30_000 });
    assert.strictEqual(await child.count(), 1);
    assert.match((await child.locator('.session-ref').textContent()) ?? '', new RegExp(`^${TASK} \\(subagent`), 'the subagent titled by its task');

    const outside = requested.filter(remote);
    assert.deepStrictEqual(outside, [], 'nothing fetched from a remote address');
  });

  it('each of these views in the dark and the light theme (screenshots)', async () => {
    for (const [theme, kind] of [
      ['Dark Modern', 'vs-dark'],
      ['Light Modern', 'vs'],
    ] as const) {
      await useTheme(page, theme, kind);
      for (const view of ['transcript', 'requests', 'anchors', 'entries', 'lineage']) {
        await show(view);
        await page.waitForTimeout(300);
        await page.screenshot({ path: path.join(shots, `workbench-ingested-${view}-${kind === 'vs' ? 'light' : 'dark'}.png`) });
      }
    }
    assert.deepStrictEqual(requested.filter(remote), [], 'nothing fetched from a remote address');
  });
});
