import type { AppendEvent, AppendListener, Disposable } from '../store/appendEvents';
import { sessionAgentOf } from '../store/sessionAgent';
import type { TapeStore } from '../store/tapeStore';
import { errorMessage } from '../tape/errorMessage';
import type { GenAiSpan, ProjectionOptions } from './genAiSpans';
import { LiveSessionSpans } from './liveSessionSpans';
import { shownUrl, type OtlpEndpoint } from './otlpEndpoint';
import { postOtlp, type PostOutcome } from './otlpPost';
import { otlpJson, otlpProtobuf, readableSpans } from './otlpRequest';
import { secretMask } from './secretMask';
import { SpanQueue, type QueuedSpan } from './spanQueue';

/**
 * Live export: the spans of every session on a tape sent to a collector as its entries land, the
 * way an OpenTelemetry SDK's batch processor sends a program's spans.
 *
 * The append listener only notes the session (O(1)): a turn never waits for the exporter. Spans
 * are collected a second after appends (LiveSessionSpans: each span once, when finished), queued
 * (SpanQueue: bounded, the oldest dropped and counted), and sent one request at a time, up to
 * `BATCH_SPANS` a request. A request the endpoint may take later (no answer, 429, 502-504) is
 * tried again after an exponential backoff or the server's Retry-After, `MAX_ATTEMPTS` times in
 * all; then, or on a final answer (400, 401, 500, a redirect), its spans are dropped and counted.
 */

export interface LiveExportStatus {
  sentSpans: number;
  sentRequests: number;
  /** Requests given up: a final answer, or the tries ran out. */
  failedRequests: number;
  /** Spans dropped: the queue was full (the oldest first), their request was given up, or the exporter closed before they went. */
  droppedSpans: number;
  queuedSpans: number;
  /** Why the last request failed (an HTTP status, a network error), without any header value; null after a success. */
  lastError: string | null;
  lastSentAt: number | null;
}

export interface LiveExportOptions extends Omit<ProjectionOptions, 'mask'> {
  endpoint: OtlpEndpoint;
  mask?: (text: string) => string;
  log?: (level: 'info' | 'warn' | 'error', line: string) => void;
  /** After every request's outcome and every drop. */
  onStatus?: (status: LiveExportStatus) => void;
  /** Test and bench knobs; the defaults are what a user gets. */
  tuning?: Partial<Tuning>;
}

interface Tuning {
  /** The wait after an append before spans are collected: a turn's burst of appends is read once. */
  collectDelayMs: number;
  /** No append to a session for this long ends its open turn (other agents' records mark no end). */
  quietMs: number;
  batchSpans: number;
  queueSpans: number;
  maxAttempts: number;
  firstBackoffMs: number;
  maxBackoffMs: number;
}

const DEFAULTS: Tuning = {
  collectDelayMs: 1000,
  quietMs: 30_000,
  batchSpans: 512,
  queueSpans: 20_000,
  maxAttempts: 6,
  firstBackoffMs: 1000,
  maxBackoffMs: 30_000,
};

/** What the exporter watches: a WorkspaceStore as it is, or `{ store, onDidAppend }` around a TapeStore. */
export interface AppendSource {
  readonly store: TapeStore;
  onDidAppend(listener: AppendListener): Disposable;
}

const operation = (s: GenAiSpan): string => String(s.attributes['gen_ai.operation.name']);

export class LiveOtlpExporter {
  private readonly tuning: Tuning;
  private readonly projection: ProjectionOptions;
  private readonly sessions = new Map<string, LiveSessionSpans>();
  /** Sessions first heard of since the last collection, with the first entry that was new. */
  private readonly firstNew = new Map<string, number>();
  private readonly lastAppendAt = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly queue: SpanQueue;
  private readonly subscription: Disposable;
  private readonly abort = new AbortController();
  private collectTimer: ReturnType<typeof setTimeout> | undefined;
  private collectDue = Infinity;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retrying: { batch: QueuedSpan[]; attempt: number } | null = null;
  private inFlight: QueuedSpan[] | null = null;
  private idleWaiters: (() => void)[] = [];
  private closing = false;
  private readonly counts: LiveExportStatus = {
    sentSpans: 0,
    sentRequests: 0,
    failedRequests: 0,
    droppedSpans: 0,
    queuedSpans: 0,
    lastError: null,
    lastSentAt: null,
  };

  constructor(
    private readonly source: AppendSource,
    private readonly options: LiveExportOptions,
  ) {
    this.tuning = { ...DEFAULTS, ...options.tuning };
    this.queue = new SpanQueue(this.tuning.queueSpans);
    // The collector's own credentials are never sent as content, whatever else the caller masks.
    const headerMask = secretMask(Object.values(options.endpoint.headers));
    const mask = options.mask;
    this.projection = {
      tape: options.tape,
      content: options.content,
      cacheWriteName: options.cacheWriteName,
      mask: mask === undefined ? headerMask : (t) => headerMask(mask(t)),
    };
    this.subscription = source.onDidAppend((e) => this.appended(e));
  }

  status(): LiveExportStatus {
    return { ...this.counts, queuedSpans: this.queue.size + (this.retrying?.batch.length ?? 0) + (this.inFlight?.length ?? 0) };
  }

  /** Sends what is finished and queued now; resolves when all is sent or given up, or at the deadline. */
  async flush(deadlineMs = 5000): Promise<void> {
    this.collect(false);
    await this.idleWithin(deadlineMs);
  }

  /** Stops listening, takes every open turn as over, and sends what it can within the deadline; the rest is counted as dropped. */
  async dispose(deadlineMs = 5000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.subscription.dispose();
    this.collect(true);
    await this.idleWithin(deadlineMs);
    clearTimeout(this.collectTimer);
    clearTimeout(this.retryTimer);
    this.abort.abort();
    const left = this.status().queuedSpans;
    if (left > 0) {
      this.counts.droppedSpans += left;
      this.options.log?.('warn', `OpenTelemetry: ${left} spans were not sent to ${this.where()} before closing`);
    }
    this.queue.take(this.queue.size);
    this.retrying = null;
    this.inFlight = null;
    this.changed();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private where(): string {
    return shownUrl(this.options.endpoint.url);
  }

  private changed(): void {
    this.options.onStatus?.(this.status());
  }

  private appended(e: AppendEvent): void {
    const now = Date.now();
    this.lastAppendAt.set(e.sessionId, now);
    if (!this.sessions.has(e.sessionId) && !this.firstNew.has(e.sessionId)) this.firstNew.set(e.sessionId, e.firstEntryId);
    this.dirty.add(e.sessionId);
    this.scheduleCollect(this.tuning.collectDelayMs);
  }

  /** A collection within `ms`, unless one is due sooner: appends in a burst never push it back. */
  private scheduleCollect(ms: number): void {
    const due = Date.now() + ms;
    if (this.closing || due >= this.collectDue) return;
    clearTimeout(this.collectTimer);
    this.collectDue = due;
    this.collectTimer = setTimeout(() => this.collect(false), ms);
    this.collectTimer.unref?.();
  }

  private collect(closeAll: boolean): void {
    clearTimeout(this.collectTimer);
    this.collectDue = Infinity;
    let store: TapeStore;
    try {
      store = this.source.store;
      // Appends of the last few milliseconds are told when they commit: a flush hears them first.
      store.commitAppends();
    } catch (e) {
      this.options.log?.('error', `OpenTelemetry: the tape cannot be read: ${errorMessage(e)}`);
      return;
    }
    const now = Date.now();
    for (const [sessionId, first] of this.firstNew) {
      try {
        this.sessions.set(sessionId, new LiveSessionSpans(store, sessionId, sessionAgentOf(store, sessionId), first, this.projection));
      } catch (e) {
        this.options.log?.('error', `OpenTelemetry: session ${sessionId} cannot be read: ${errorMessage(e)}`);
      }
    }
    this.firstNew.clear();
    const ready: QueuedSpan[] = [];
    let open = false;
    for (const [sessionId, watch] of this.sessions) {
      const quiet = now - (this.lastAppendAt.get(sessionId) ?? 0) >= this.tuning.quietMs;
      if (!closeAll && !this.dirty.has(sessionId) && !quiet) {
        open = true;
        continue;
      }
      try {
        for (const span of watch.collect(store, quiet, closeAll)) ready.push({ agent: watch.agent, span });
        open ||= watch.hasOpenTurn(store);
      } catch (e) {
        this.options.log?.('error', `OpenTelemetry: the spans of session ${sessionId} cannot be built: ${errorMessage(e)}`);
      }
    }
    this.dirty.clear();
    // A turn's span after its children, as a tracer ends them; a backend then never holds a parent whose children are still coming.
    ready.sort((a, b) => Number(operation(a.span) === 'invoke_agent') - Number(operation(b.span) === 'invoke_agent'));
    const dropped = this.queue.push(ready);
    if (dropped > 0) {
      this.counts.droppedSpans += dropped;
      this.options.log?.('warn', `OpenTelemetry: ${dropped} oldest spans dropped: at most ${this.tuning.queueSpans} wait while ${this.where()} does not take them`);
    }
    if (ready.length > 0) this.changed();
    // Open turns of other agents end by quiet: look again then.
    if (open && !closeAll) this.scheduleCollect(this.tuning.quietMs);
    this.pump();
  }

  private encode(batch: readonly QueuedSpan[]): Uint8Array {
    const byAgent = new Map<string, GenAiSpan[]>();
    for (const { agent, span } of batch) byAgent.set(agent, [...(byAgent.get(agent) ?? []), span]);
    const spans = [...byAgent].flatMap(([agent, s]) => readableSpans(s, agent));
    return this.options.endpoint.protocol === 'http/json' ? Buffer.from(otlpJson(spans)) : otlpProtobuf(spans);
  }

  private pump(): void {
    if (this.inFlight !== null || this.retryTimer !== undefined || this.abort.signal.aborted) return;
    const attempt = this.retrying?.attempt ?? 0;
    const batch = this.retrying?.batch ?? this.queue.take(this.tuning.batchSpans);
    this.retrying = null;
    if (batch.length === 0) {
      for (const resolve of this.idleWaiters.splice(0)) resolve();
      return;
    }
    let body: Uint8Array;
    try {
      body = this.encode(batch);
    } catch (e) {
      this.giveUp(batch, `the spans could not be encoded: ${errorMessage(e)}`);
      this.pump();
      return;
    }
    this.inFlight = batch;
    void postOtlp(this.options.endpoint, body, this.abort.signal).then((outcome) => {
      if (this.inFlight !== batch) return;
      this.inFlight = null;
      this.settle(batch, attempt, outcome);
    });
  }

  private settle(batch: QueuedSpan[], attempt: number, outcome: PostOutcome): void {
    if (outcome.kind === 'sent') {
      if (this.counts.lastError !== null) this.options.log?.('info', `OpenTelemetry: ${this.where()} takes spans again`);
      this.counts.sentSpans += batch.length;
      this.counts.sentRequests += 1;
      this.counts.lastSentAt = Date.now();
      this.counts.lastError = null;
    } else if (outcome.kind === 'retry' && attempt + 1 < this.tuning.maxAttempts) {
      const backoff = Math.min(this.tuning.firstBackoffMs * 2 ** attempt, this.tuning.maxBackoffMs);
      // Jitter: many windows whose collector came back must not all send at the same instant.
      const delay = outcome.afterMs ?? Math.round(backoff * (0.5 + Math.random() / 2));
      this.counts.lastError = outcome.reason;
      this.options.log?.('warn', `OpenTelemetry: ${outcome.reason}; ${batch.length} spans tried again in ${delay} ms (try ${attempt + 2} of ${this.tuning.maxAttempts})`);
      this.retrying = { batch, attempt: attempt + 1 };
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.pump();
      }, delay);
      this.retryTimer.unref?.();
    } else this.giveUp(batch, outcome.kind === 'retry' ? `${outcome.reason} (${this.tuning.maxAttempts} tries)` : outcome.reason);
    this.changed();
    this.pump();
  }

  private giveUp(batch: readonly QueuedSpan[], reason: string): void {
    this.counts.failedRequests += 1;
    this.counts.droppedSpans += batch.length;
    this.counts.lastError = reason;
    this.options.log?.('error', `OpenTelemetry: ${batch.length} spans dropped: ${reason}`);
  }

  private idleWithin(ms: number): Promise<void> {
    if (this.status().queuedSpans === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref?.();
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
