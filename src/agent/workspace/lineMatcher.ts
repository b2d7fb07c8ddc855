import { Worker } from 'worker_threads';

/** A regular expression that ran past its time: the search ends with this message for the model. */
export class PatternTimeoutError extends Error {
  override readonly name = 'PatternTimeoutError';
}

/** A matching line: 0-based, its text cut to `maxChars` (with `…`). */
export type LineHit = [line: number, text: string];

export interface NamedText {
  /** Names the text in the timeout message. */
  readonly name: string;
  readonly text: string;
}

/**
 * The worker's whole source, run from a string (`eval`), so the esbuild bundles (dist/extension.js,
 * dist/cli.js) need no file beside them. It tests each line of the texts it is sent, writing the
 * index of the text it is on into the shared `progress` (so a timeout can name it), and answers
 * with each text's hits, at most `max` in all. It has no access to anything but the messages.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('worker_threads');
const regex = new RegExp(workerData.source, workerData.flags);
const progress = new Int32Array(workerData.progress);
parentPort.on('message', ({ texts, max }) => {
  let left = max;
  const all = texts.map((text, index) => {
    Atomics.store(progress, 0, index);
    const lines = text.split(/\\r?\\n/);
    const hits = [];
    for (let i = 0; i < lines.length && left > 0; i++) {
      const line = lines[i];
      if (!regex.test(line)) continue;
      hits.push([i, line.length > workerData.maxChars ? line.slice(0, workerData.maxChars) + '\\u2026' : line]);
      left--;
    }
    return hits;
  });
  parentPort.postMessage(all);
});
`;

/**
 * Runs a regular expression from the model over texts line by line, in a worker thread: a pattern
 * that backtracks exponentially (`(a+)+$`) would otherwise hold the only thread of the extension
 * host (17 s for 29 characters). Each batch of texts gets `limitMs`; past it, or on abort, the
 * worker is terminated (V8 interrupts a running regex for that) and the call rejects.
 */
export class LineMatcher {
  private worker: Worker | undefined;
  private readonly progress = new Int32Array(new SharedArrayBuffer(4));

  constructor(
    private readonly pattern: RegExp,
    private readonly limitMs: number,
    private readonly maxChars: number,
  ) {}

  /**
   * The matching lines of each text, at most `max` in all. `deadline` (a Date.now() value) ends
   * the wait sooner than `limitMs` when the whole search is nearly out of time.
   */
  match(texts: readonly NamedText[], max: number, deadline: number, signal?: AbortSignal): Promise<LineHit[][]> {
    const worker = (this.worker ??= new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { source: this.pattern.source, flags: this.pattern.flags, maxChars: this.maxChars, progress: this.progress.buffer },
    }));
    return new Promise<LineHit[][]>((resolve, reject) => {
      const wait = Math.max(0, Math.min(this.limitMs, deadline - Date.now()));
      const stop = (error: Error) => {
        cleanup();
        void this.dispose();
        reject(error);
      };
      const onTimeout = () => {
        const on = texts[Atomics.load(this.progress, 0)]?.name ?? texts[0]?.name;
        stop(
          wait < this.limitMs
            ? new PatternTimeoutError(`the search ran out of time while searching ${on}; narrow it with include`)
            : new PatternTimeoutError(
                `the pattern took longer than ${this.limitMs / 1000} s on ${on}; simplify it (nested quantifiers such as (a+)+ backtrack exponentially)`,
              ),
        );
      };
      const timer = setTimeout(onTimeout, wait);
      const onAbort = () => stop(new Error('the search was cancelled'));
      const onMessage = (hits: LineHit[][]) => {
        cleanup();
        resolve(hits);
      };
      const onError = (error: Error) => stop(error);
      // A worker that ends without answering (out of memory, say) would otherwise leave the search waiting.
      const onExit = (code: number) => stop(new Error(`the regular expression's worker stopped (exit code ${code}) before it answered`));
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      Atomics.store(this.progress, 0, 0);
      worker.postMessage({ texts: texts.map((t) => t.text), max });
    });
  }

  async dispose(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }
}
