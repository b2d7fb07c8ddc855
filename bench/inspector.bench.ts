// The Tape Inspector's host on a 100k-entry session: what the page waits for on open (`source` and
// the transcript's last page from `ready`, and an earlier page), an entry page at the start and near the end, a kind filter and a
// text filter (first run, and a page of the cached ids), against the baseline of reading the same
// rows without the inspector (the store's own range read and search); and the host's memory
// (heapUsed + external) against the tape's snapshot size. Then the built page in Chromium, driven by a
// controller here, to its first transcript item.
import * as fs from 'fs';
import { createRequire } from 'module';
import * as path from 'path';
import type * as Playwright from 'playwright-core';
import { InspectorController } from '../src/inspector/inspectorController';
import { writeFileDurably } from '../src/store/fsutil';
import { inspectorRequests, type EntryListFilter, type HostToInspector } from '../src/protocol/inspector';
import type { RequestMessage } from '../src/protocol/requestMap';
import { TapeStore } from '../src/store/tapeStore';
import { CHROMIUM, CHROMIUM_ARGS } from '../test/support/vscodeServer';
import { webviewPageUrl } from '../test/support/webviewPage';
import { proseOf, round, sessionRows, targets, tempDir, time } from './common';
import { inspectorSource } from '../test/unit/inspector/inspectorSource';

const ENTRIES = 100_000;
// About 100 MB of snapshot, as the issue sizes the tape.
const TEXT_BYTES = 520;
const S = 's';

function memory(): number {
  (globalThis as { gc?: () => void }).gc?.();
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/**
 * The real page (dist/inspector.js in the webview shell) in Chromium, its `acquireVsCodeApi` bridged
 * to a controller on `store` here: milliseconds from navigation to the first transcript item drawn.
 * Null when the webview bundle is not built.
 */
async function firstPaintMs(store: TapeStore): Promise<number | null> {
  const root = process.cwd();
  if (!fs.existsSync(path.join(root, 'dist/inspector.js'))) return null;
  // The bench runner bundles everything but sql.js, and playwright-core cannot be bundled: load it as installed.
  const { chromium } = createRequire(path.join(root, 'package.json'))('playwright-core') as typeof Playwright;
  const url = webviewPageUrl(root, { title: 'Tape Inspector', nonce: 'benchnonce', script: 'dist/inspector.js', style: 'media/inspector.css', codicons: true });
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
    const c = new InspectorController(inspectorSource(store, 'bench', true), {
      post: (m) => void page.evaluate((msg) => window.postMessage(msg, '*'), m),
      copy: () => undefined,
      command: () => undefined,
    });
    await page.exposeFunction('benchToHost', (m: unknown) => c.handle(m));
    await page.addInitScript(() => {
      const w = window as unknown as { benchToHost(m: unknown): void; acquireVsCodeApi(): unknown };
      w.acquireVsCodeApi = () => ({ postMessage: (m: unknown) => w.benchToHost(m), getState: () => undefined, setState: () => undefined });
    });
    const t0 = performance.now();
    await page.goto(url);
    await page.waitForSelector('.transcript-item', { timeout: 60_000 });
    const ms = performance.now() - t0;
    c.dispose();
    return ms;
  } finally {
    await browser.close();
  }
}

async function main(): Promise<void> {
  // Opened from a file as the extension opens a tape, not from the bulk-loaded copy: that copy's
  // full-text index is in one segment per row until it is written and read back.
  const dir = tempDir();
  const file = path.join(dir, 'inspector.tape.sqlite');
  const bulk = await TapeStore.inMemory(sessionRows(S, ENTRIES, TEXT_BYTES, proseOf));
  const bytes = bulk.snapshotBytes();
  await bulk.close();
  await writeFileDurably(file, [bytes], true);
  const snapshotBytes = bytes.length;
  const before = memory();
  const store = await TapeStore.open(file, { readOnly: true });
  const storeBytes = memory() - before;
  const posted: HostToInspector[] = [];
  let transcriptPostedAt = 0;
  const post = (m: HostToInspector): void => {
    if (m.type === 'transcript' && transcriptPostedAt === 0) transcriptPostedAt = performance.now();
    posted.push(m);
  };
  const c = new InspectorController(inspectorSource(store, 'bench', true), { post, copy: () => undefined, command: () => undefined });
  const ask = async (m: RequestMessage | { type: 'ready' }): Promise<number> => {
    const t0 = performance.now();
    await c.handle(m);
    return performance.now() - t0;
  };
  const readyAt = performance.now();
  const readyMs = await ask({ type: 'ready' });
  const readyToTranscriptMs = transcriptPostedAt - readyAt;
  const transcript = posted.find((m): m is Extract<HostToInspector, { type: 'transcript' }> => m.type === 'transcript');
  if (transcript === undefined) throw new Error('no transcript after ready');
  const earlierMs = await ask({ type: 'request', id: 0, method: 'transcript', params: { offset: Math.max(0, transcript.offset - 200), limit: 200 } });
  const entries = (id: number, offset: number, filter: EntryListFilter) =>
    ask({ type: 'request', id, method: 'entries', params: { offset, limit: 100, filter } });
  const pageStartMs = await entries(1, 0, {});
  const pageEndMs = await entries(2, 90_000, {});
  const kindFirstMs = await entries(3, 0, { kinds: ['tool_call'] });
  const kindScrollMs = await entries(4, 20_000, { kinds: ['tool_call'] });
  const textFirstMs = await entries(5, 0, { text: 'connection refused' });
  const textScrollMs = await entries(6, 500, { text: 'connection refused' });
  const cjkFirstMs = await entries(7, 0, { text: '连接失败' });
  const errors = posted.filter((m) => m.type === 'error' || (m.type === 'reply' && !m.ok));
  if (errors.length) throw new Error(JSON.stringify(errors));
  // Replies 1..7 are the entries pages (0 is the transcript's).
  const totals = posted.flatMap((m) => (m.type === 'reply' && m.ok && m.id > 0 ? [inspectorRequests.entries.reply.parse(m.result).total] : []));
  // What the transcript message weighs once serialised for the webview.
  const transcriptJsonBytes = JSON.stringify(transcript).length;
  posted.length = 0;
  const hostBytes = memory() - before;

  // The baseline: the store's own reads of the same rows, no inspector in between.
  const baseRangeMs = time(() => store.entries(S, { fromEntryId: 90_001, toEntryId: 90_100 }));
  const baseKindMs = time(() => store.entries(S, { kind: 'tool_call', limit: 100 }));
  const baseSearchMs = time(() => store.search('connection refused', { sessionId: S, limit: 100 }));
  c.dispose();
  const pageMs = await firstPaintMs(store);
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  const filterMs = Math.max(kindFirstMs, textFirstMs, cjkFirstMs);
  console.log(
    JSON.stringify({
      entries: ENTRIES,
      snapshotMB: round(snapshotBytes / 1e6, 1),
      readyToSourceAndTranscriptMs: round(readyMs, 0),
      readyToTranscriptMs: round(readyToTranscriptMs, 0),
      // In Chromium, from navigation to the first transcript item drawn (null: dist/ is not built).
      pageFirstTranscriptItemMs: pageMs === null ? null : round(pageMs, 0),
      transcript: { items: transcript.items.length, total: transcript.total, jsonKB: round(transcriptJsonBytes / 1e3, 1), earlierPageMs: round(earlierMs, 1) },
      entriesPageMs: { offset0: round(pageStartMs, 1), offset90000: round(pageEndMs, 1) },
      kindFilterMs: { first: round(kindFirstMs, 1), cachedPage: round(kindScrollMs, 1), matches: totals[2] },
      textFilterMs: {
        first: round(textFirstMs, 1),
        cachedPage: round(textScrollMs, 1),
        matches: totals[4],
        cjkFirst: round(cjkFirstMs, 1),
        cjkMatches: totals[6],
      },
      baseline: { rangeReadMs: round(baseRangeMs, 1), kindReadMs: round(baseKindMs, 1), searchMs: round(baseSearchMs, 1) },
      ratios: {
        pageAt90000VsRangeRead: round(pageEndMs / baseRangeMs, 2),
        textFilterVsSearch: round(textFirstMs / baseSearchMs, 2),
        hostMemoryVsSnapshot: round(hostBytes / snapshotBytes, 2),
      },
      hostMemoryMB: round(hostBytes / 1e6, 1),
      // The store alone (its sql.js database and fold rows), before the inspector reads anything.
      storeMemoryMB: round(storeBytes / 1e6, 1),
      inspectorMemoryMB: round((hostBytes - storeBytes) / 1e6, 1),
      targets: targets({
        'a filter or search answers in <= 100 ms': filterMs <= 100,
        'the transcript is posted <= 500 ms after ready': readyToTranscriptMs <= 500,
        'the page draws its first transcript item <= 500 ms after it opens': pageMs !== null && pageMs <= 500,
        'host memory <= 1.5x the tape size': hostBytes <= 1.5 * snapshotBytes,
      }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
