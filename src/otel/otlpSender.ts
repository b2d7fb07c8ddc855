import { errorMessage } from '../tape/errorMessage';
import type { GenAiSpan } from './genAiSpans';
import { shownUrl, type OtlpEndpoint } from './otlpEndpoint';
import { postOtlp, type PostOutcome } from './otlpPost';
import { otlpJson, otlpProtobuf, readableSpans } from './otlpRequest';
import { SpanQueue, type QueuedSpan } from './spanQueue';

/**
 * Spans to a collector the way an OpenTelemetry SDK's batch processor sends a program's: queued
 * (SpanQueue: bounded, the oldest dropped and counted), one request at a time of up to
 * `batchSpans`. A request the endpoint may take later (no answer, 429, 502-504) is tried again
 * after an exponential backoff with jitter, or the server's Retry-After, `maxAttempts` times in
 * all; then, or on a final answer (400, 401, 500, a redirect), its spans are dropped and counted.
 */

export interface LiveExportStatus {
  sentSpans: number;
  sentRequests: number;
  /** Requests given up: a final answer, or the tries ran out. */
  failedRequests: number;
  /** Spans dropped: the queue was full (the oldest first), their request was given up, or the sender closed before they went. */
  droppedSpans: number;
  queuedSpans: number;
  /** Why the last request failed (an HTTP status, a network error), without any header value; null after a success. */
  lastError: string | null;
  lastSentAt: number | null;
}

export interface SenderTuning {
  batchSpans: number;
  queueSpans: number;
  maxAttempts: number;
  firstBackoffMs: number;
  maxBackoffMs: number;
}

export const SENDER_DEFAULTS: SenderTuning = { batchSpans: 512, queueSpans: 20_000, maxAttempts: 6, firstBackoffMs: 1000, maxBackoffMs: 30_000 };

export interface SenderOptions {
  log?: (level: 'info' | 'warn' | 'error', line: string) => void;
  /** After every request's outcome and every drop. */
  onStatus?: (status: LiveExportStatus) => void;
  tuning?: Partial<SenderTuning>;
}

export class OtlpSender {
  private readonly tuning: SenderTuning;
  private readonly queue: SpanQueue;
  private readonly abort = new AbortController();
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private retrying: { batch: QueuedSpan[]; attempt: number } | null = null;
  private inFlight: QueuedSpan[] | null = null;
  private idleWaiters: (() => void)[] = [];
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
    private readonly endpoint: OtlpEndpoint,
    private readonly options: SenderOptions = {},
  ) {
    this.tuning = { ...SENDER_DEFAULTS, ...options.tuning };
    this.queue = new SpanQueue(this.tuning.queueSpans);
  }

  status(): LiveExportStatus {
    return { ...this.counts, queuedSpans: this.queue.size + (this.retrying?.batch.length ?? 0) + (this.inFlight?.length ?? 0) };
  }

  get where(): string {
    return shownUrl(this.endpoint.url);
  }

  send(spans: readonly QueuedSpan[]): void {
    if (spans.length === 0 || this.abort.signal.aborted) return;
    const dropped = this.queue.push(spans);
    if (dropped > 0) {
      this.counts.droppedSpans += dropped;
      this.options.log?.(
        'warn',
        `OpenTelemetry: ${dropped} oldest spans dropped: at most ${this.tuning.queueSpans} wait while ${this.where} does not take them`,
      );
    }
    this.changed();
    this.pump();
  }

  /** Resolves when every queued span is sent or given up, or after `ms`. */
  idleWithin(ms: number): Promise<void> {
    if (this.status().queuedSpans === 0) return Promise.resolve();
    return new Promise((resolve) => {
      // Not unref'd, unlike the sender's own timers: whoever waits here (the CLI at its end) must be kept alive for the retries.
      const timer = setTimeout(resolve, ms);
      this.idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Sends what it can within the deadline, then stops; what is left is counted as dropped. */
  async close(deadlineMs: number): Promise<void> {
    await this.idleWithin(deadlineMs);
    clearTimeout(this.retryTimer);
    this.abort.abort();
    const left = this.status().queuedSpans;
    if (left > 0) {
      this.counts.droppedSpans += left;
      this.options.log?.('warn', `OpenTelemetry: ${left} spans were not sent to ${this.where} before closing`);
    }
    this.queue.take(this.queue.size);
    this.retrying = null;
    this.inFlight = null;
    this.changed();
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  private changed(): void {
    this.options.onStatus?.(this.status());
  }

  private encode(batch: readonly QueuedSpan[]): Uint8Array {
    const byAgent = new Map<string, GenAiSpan[]>();
    for (const { agent, span } of batch) {
      const spans = byAgent.get(agent);
      if (spans === undefined) byAgent.set(agent, [span]);
      else spans.push(span);
    }
    const spans = [...byAgent].flatMap(([agent, s]) => readableSpans(s, agent));
    return this.endpoint.protocol === 'http/json' ? Buffer.from(otlpJson(spans)) : otlpProtobuf(spans);
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
    void postOtlp(this.endpoint, body, this.abort.signal).then((outcome) => {
      if (this.inFlight !== batch) return;
      this.inFlight = null;
      this.settle(batch, attempt, outcome);
    });
  }

  private settle(batch: QueuedSpan[], attempt: number, outcome: PostOutcome): void {
    if (outcome.kind === 'sent') {
      if (this.counts.lastError !== null) this.options.log?.('info', `OpenTelemetry: ${this.where} takes spans again`);
      this.counts.sentSpans += batch.length;
      this.counts.sentRequests += 1;
      this.counts.lastSentAt = Date.now();
      this.counts.lastError = null;
    } else if (outcome.kind === 'retry' && attempt + 1 < this.tuning.maxAttempts) {
      const backoff = Math.min(this.tuning.firstBackoffMs * 2 ** attempt, this.tuning.maxBackoffMs);
      // Jitter: many windows whose collector came back must not all send at the same instant.
      const delay = outcome.afterMs ?? Math.round(backoff * (0.5 + Math.random() / 2));
      this.counts.lastError = outcome.reason;
      this.options.log?.(
        'warn',
        `OpenTelemetry: ${outcome.reason}; ${batch.length} spans tried again in ${delay} ms (try ${attempt + 2} of ${this.tuning.maxAttempts})`,
      );
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
}
