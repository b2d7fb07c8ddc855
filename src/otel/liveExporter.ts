import type { AppendEvent, AppendListener, Disposable } from '../store/appendEvents';
import { sessionAgentOf } from '../store/sessionAgent';
import type { TapeStore } from '../store/tapeStore';
import { errorMessage } from '../tape/errorMessage';
import type { GenAiSpan, ProjectionOptions } from './genAiSpans';
import { LiveSessionSpans } from './liveSessionSpans';
import type { OtlpEndpoint } from './otlpEndpoint';
import { OtlpSender, type LiveExportStatus, type SenderOptions, type SenderTuning } from './otlpSender';
import { secretMask } from './secretMask';
import type { QueuedSpan } from './spanQueue';

export type { LiveExportStatus } from './otlpSender';

/**
 * Live export: the spans of every session on a tape sent to a collector as its entries land.
 *
 * The append listener only notes the session (O(1)): a turn never waits for the exporter. Spans
 * are collected a second after appends (LiveSessionSpans: each span once, when finished) and
 * handed to an OtlpSender (bounded queue, batches, retries with backoff).
 */

export interface LiveExportOptions extends Omit<ProjectionOptions, 'mask'>, Omit<SenderOptions, 'tuning'> {
  endpoint: OtlpEndpoint;
  mask?: (text: string) => string;
  /** Test and bench knobs; the defaults are what a user gets. */
  tuning?: Partial<Tuning>;
}

interface Tuning extends SenderTuning {
  /** The wait after an append before spans are collected: a turn's burst of appends is read once. */
  collectDelayMs: number;
  /** No append to a session for this long ends its open turn (other agents' records mark no end). */
  quietMs: number;
}

const COLLECT_DELAY_MS = 1000;
const QUIET_MS = 30_000;

/** What the exporter watches: a WorkspaceStore as it is, or `{ store, onDidAppend }` around a TapeStore. */
export interface AppendSource {
  readonly store: TapeStore;
  onDidAppend(listener: AppendListener): Disposable;
}

const operation = (s: GenAiSpan): string => String(s.attributes['gen_ai.operation.name']);

export class LiveOtlpExporter {
  private readonly collectDelayMs: number;
  private readonly quietMs: number;
  private readonly projection: ProjectionOptions;
  private readonly sender: OtlpSender;
  private readonly sessions = new Map<string, LiveSessionSpans>();
  /** Sessions first heard of since the last collection, with the first entry that was new. */
  private readonly firstNew = new Map<string, number>();
  private readonly lastAppendAt = new Map<string, number>();
  private readonly dirty = new Set<string>();
  private readonly subscription: Disposable;
  private collectTimer: ReturnType<typeof setTimeout> | undefined;
  private collectDue = Infinity;
  private closing = false;

  constructor(
    private readonly source: AppendSource,
    private readonly options: LiveExportOptions,
  ) {
    this.collectDelayMs = options.tuning?.collectDelayMs ?? COLLECT_DELAY_MS;
    this.quietMs = options.tuning?.quietMs ?? QUIET_MS;
    this.sender = new OtlpSender(options.endpoint, { log: options.log, onStatus: options.onStatus, tuning: options.tuning });
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
    return this.sender.status();
  }

  /** Sends what is finished and queued now; resolves when all is sent or given up, or at the deadline. */
  async flush(deadlineMs = 5000): Promise<void> {
    this.collect(false);
    await this.sender.idleWithin(deadlineMs);
  }

  /** Stops listening, takes every open turn as over, and sends what it can within the deadline; the rest is counted as dropped. */
  async dispose(deadlineMs = 5000): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.subscription.dispose();
    this.collect(true);
    clearTimeout(this.collectTimer);
    await this.sender.close(deadlineMs);
  }

  private appended(e: AppendEvent): void {
    this.lastAppendAt.set(e.sessionId, Date.now());
    if (!this.sessions.has(e.sessionId) && !this.firstNew.has(e.sessionId)) this.firstNew.set(e.sessionId, e.firstEntryId);
    this.dirty.add(e.sessionId);
    this.scheduleCollect(this.collectDelayMs);
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
      const quiet = now - (this.lastAppendAt.get(sessionId) ?? 0) >= this.quietMs;
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
    this.sender.send(ready);
    // Open turns of other agents end by quiet: look again then.
    if (open && !closeAll) this.scheduleCollect(this.quietMs);
  }
}
