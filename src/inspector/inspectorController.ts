import { SUBAGENT_LINKED } from '../tape/entryNames';
import * as z from 'zod';
import { childrenBySession, type ChildSession } from '../store/forks';
import type { ReadableTape, TapeReader } from '../store/lineage';
import { sessionUsages } from '../store/sessionUsage';
import type { Disposable, TapeStore } from '../store/tapeStore';
import { errorMessage } from '../tape/errorMessage';
import { NO_USAGE, sameUsage } from '../tape/usage/usageFigures';
import { sessionsBelow, type SessionUsage } from '../tape/usage/usageRollup';
import {
  inspectorRequests,
  inspectorToHost,
  type CompactionAmendment,
  type HostToInspector,
  type InspectorNotice,
  type InspectorRequests,
} from '../protocol/inspector';
import { OPENABLE_SCHEMES, openableUrl } from '../protocol/openableLink';
import { RequestDispatcher, type RequestHandlers } from '../protocol/requestDispatcher';
import { anchorItems } from './anchorsTimeline';
import { EntryQuery } from './entryQuery';
import { entryRowOf, storedJsonOf } from './entryRows';
import { evaluationReport, evaluationsOf } from './evaluationsView';
import { lineageView } from './lineageView';
import { ProjectionsReader } from './projectionsView';
import { requestDiff, requestItems } from './requests';
import { SessionTitles } from './sessionTitles';
import { Transcript } from './transcript';

export interface InspectorSource extends ReadableTape {
  label: string;
  readOnly: boolean;
}

/** What the controller needs of its host (a webview panel, a test). */
export interface InspectorHost {
  post(m: HostToInspector): void;
  copy(text: string): void;
  command(name: string, args: (string | number)[]): void;
  /**
   * Appends an amendment of the compaction `anchorEntryId` of the session through its session
   * handle (asking the user first where it should), resolving to what was appended and said, or
   * null when the user declined; it rejects, having written nothing, when the handle refuses.
   * Absent where the page's tape cannot be written (a tape file's editor).
   */
  amend?(sessionId: string, anchorEntryId: number, amendment: CompactionAmendment): Promise<{ entryId: number; message: string } | null>;
  /**
   * Opens an address outside VS Code (`vscode.env.openExternal`, which asks first for a site not
   * trusted), resolving to whether it was opened. Only ever given an `openableUrl`. Absent where
   * nothing may be opened (a test's host).
   */
  openExternal?(url: string): Promise<boolean>;
}

const DEFAULT_BATCH_MS = 100;
/** The most transcript items one request gets: a page is for reading, not for copying the session out. */
const MAX_TRANSCRIPT_PAGE = 1000;

/**
 * Everything derived from one store: replaced together when the store is. The views read through
 * the lineage reader, so a fork shows its parent's entries up to the fork point, at its positions.
 */
class Readers {
  readonly store: TapeStore;
  readonly reader: TapeReader;
  readonly transcript: Transcript;
  readonly entries: EntryQuery;
  readonly projections: ProjectionsReader;
  /** Titles of every listed session, kept between announcements so a new one costs its session only. */
  readonly titles: SessionTitles;

  constructor({ store, reader }: InspectorSource) {
    this.store = store;
    this.reader = reader;
    this.transcript = new Transcript(this.reader);
    this.entries = new EntryQuery(this.reader);
    this.projections = new ProjectionsReader(this.reader);
    this.titles = new SessionTitles(this.reader);
  }
}

/**
 * The host side of one Tape Inspector: answers the webview's typed requests from the store (each
 * with its reply, through one dispatcher) and tells it, in batches, what was appended to the
 * session it shows. Nothing here throws at the host: a failing request gets an error reply, any
 * other failure an `error` message.
 */
export class InspectorController {
  private source: InspectorSource;
  private readers: Readers;
  private subscription: Disposable;
  private selected: string | null;
  /** Nothing is posted before the page said `ready`: it would not be listening. */
  private started = false;
  /** The head the page has seen of the selected session; an append batch posts what is after it. */
  private postedHead = 0;
  /** The first transcript item the page holds: a new compaction re-marks the items from there on. */
  private transcriptFrom = 0;
  private known = new Set<string>();
  private sessionsGrew = false;
  /** The usage the page was told of the selected session, and the sessions below it, whose appends change it. */
  private postedUsage: SessionUsage | null = null;
  private usageFrom = new Set<string>();
  /**
   * The session tree, read again only when it may have changed: a new session (a fork, a subagent),
   * or a link appended to the shown session or below it (an ingested subagent is linked after its
   * entries); reading it takes a pass over every session, too much for every streamed delta.
   */
  private family: Map<string, ChildSession[]> | null = null;
  /** An evaluation report asked for before the page was ready: opened once it is. */
  private pendingEvaluation: string | undefined;
  /** Likewise an anchor to show. */
  private pendingAnchor: number | undefined;
  /** Likewise an entry to reveal. */
  private pendingReveal: number | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private disposed = false;
  private readonly batchMs: number;
  private readonly dispatcher = new RequestDispatcher(inspectorRequests, this.handlers(), (reply) => this.post(reply));

  constructor(
    source: InspectorSource,
    private readonly host: InspectorHost,
    options: { sessionId?: string; batchMs?: number } = {},
  ) {
    this.batchMs = options.batchMs ?? DEFAULT_BATCH_MS;
    this.source = source;
    this.readers = new Readers(source);
    this.subscription = this.listen();
    this.selected = options.sessionId ?? null;
  }

  get sessionId(): string | null {
    return this.selected;
  }

  async handle(raw: unknown): Promise<void> {
    const parsed = inspectorToHost.safeParse(raw);
    if (!parsed.success) {
      this.post({ type: 'error', message: `malformed message from the inspector: ${z.prettifyError(parsed.error)}` });
      return;
    }
    const m = parsed.data;
    if (m.type === 'request') await this.dispatcher.dispatch(m);
    else this.guarded(() => this.notice(m));
  }

  /** The workspace's store was replaced (a read-only tape became writable): the page starts over on it. */
  setSource(source: InspectorSource): void {
    this.subscription.dispose();
    this.clearTimer();
    this.source = source;
    this.readers = new Readers(source);
    this.family = null;
    this.subscription = this.listen();
    if (this.started) this.guarded(() => this.announce());
  }

  /** The page shows the entry `entryId` in the Entries view, selected (once it is ready). */
  reveal(entryId: number): void {
    if (!this.started) this.pendingReveal = entryId;
    else this.post({ type: 'reveal', entryId });
  }

  /**
   * VS Code discarded the page (a hidden panel keeps no context): what is posted now is lost, and
   * the page loads again and says `ready` when it is shown. So nothing is posted until then, and an
   * evaluation asked for meanwhile waits for it.
   */
  pageUnloaded(): void {
    this.started = false;
  }

  /** An evaluation of the shown session finished: the page opens its report (once it is ready). */
  showEvaluation(evalSessionId: string): void {
    if (!this.started) this.pendingEvaluation = evalSessionId;
    else if (this.selected !== null) this.post({ type: 'showEvaluation', sessionId: this.selected, evalSessionId });
  }

  /** The page opens the Anchors view on the anchor `entryId` of the shown session (once it is ready). */
  showAnchor(entryId: number): void {
    if (!this.started) this.pendingAnchor = entryId;
    else if (this.selected !== null) this.post({ type: 'showAnchor', sessionId: this.selected, entryId });
  }

  /** A replay's cursor on this tape moved: followed when it is on the session shown. */
  cursor(sessionId: string, entryId: number | null): void {
    if (this.started && sessionId === this.selected) this.post({ type: 'cursor', sessionId, entryId });
  }

  dispose(): void {
    this.disposed = true;
    this.subscription.dispose();
    this.clearTimer();
  }

  private notice(m: InspectorNotice): void {
    switch (m.type) {
      case 'ready':
        this.started = true;
        this.announce();
        if (this.pendingEvaluation !== undefined) this.showEvaluation(this.pendingEvaluation);
        if (this.pendingAnchor !== undefined) this.showAnchor(this.pendingAnchor);
        if (this.pendingReveal !== undefined) this.reveal(this.pendingReveal);
        this.pendingEvaluation = undefined;
        this.pendingAnchor = undefined;
        this.pendingReveal = undefined;
        return;
      case 'selectSession':
        if (!this.readers.store.sessions().some((s) => s.sessionId === m.sessionId)) throw new Error(`the tape has no session ${JSON.stringify(m.sessionId)}`);
        this.selected = m.sessionId;
        this.announce();
        return;
      case 'copy':
        this.host.copy(m.text);
        return;
      case 'command':
        this.host.command(m.command, m.args ?? []);
        return;
    }
  }

  /** The readers are looked up per request: `setSource` replaces them. */
  private handlers(): RequestHandlers<InspectorRequests> {
    return {
      transcript: ({ offset, limit }) => {
        const sessionId = this.session();
        const page = this.readers.transcript.page(sessionId, offset, Math.min(limit, MAX_TRANSCRIPT_PAGE));
        this.transcriptFrom = Math.min(this.transcriptFrom, page.offset);
        return { sessionId, headEntryId: this.readers.reader.headEntryId(sessionId), ...page };
      },
      entries: ({ offset, limit, filter }) => {
        const page = this.selected === null ? { total: 0, rows: [] } : this.readers.entries.page(this.selected, filter, offset, limit);
        return { offset, ...page };
      },
      entry: ({ entryId }) => {
        // Exactly as stored: an entry a fork reads through from its parent is shown as the parent holds it.
        const at = this.readers.reader.origin(this.session(), entryId);
        const raw = this.readers.store.rawEntries(at.sessionId, { fromEntryId: at.entryId, toEntryId: at.entryId })[0];
        if (raw === undefined) throw new Error(`session ${this.session()} has no entry ${entryId}`);
        return { entryId, entry: storedJsonOf(raw) };
      },
      diff: ({ a, b }) => requestDiff(this.readers.reader, this.session(), a, b),
      anchors: () => {
        const sessionId = this.session();
        return { sessionId, items: anchorItems(this.readers.reader, sessionId) };
      },
      amendCompaction: async ({ anchorEntryId, amendment }) => {
        const sessionId = this.session();
        if (this.source.readOnly || this.host.amend === undefined) throw new Error('this tape is read-only here: nothing was amended');
        const done = await this.host.amend(sessionId, anchorEntryId, amendment);
        return done === null ? { sessionId, entryId: null, message: 'Nothing was appended.' } : { sessionId, ...done };
      },
      requests: () => {
        const sessionId = this.session();
        const { items, skipped } = requestItems(this.readers.reader, sessionId);
        // The protocol's request items have no place for a manifest that does not read; say so once.
        if (skipped.length > 0) this.post({ type: 'error', message: skipped.map((s) => `request entry ${s.entryId} skipped: ${s.reason}`).join('\n') });
        return { sessionId, items };
      },
      projections: () => {
        const sessionId = this.session();
        return { sessionId, view: this.readers.projections.view(sessionId) };
      },
      lineage: () => {
        const sessionId = this.session();
        const r = this.readers;
        return { sessionId, view: lineageView(r.store, r.reader, r.titles, sessionId) };
      },
      evaluations: () => {
        const sessionId = this.session();
        return { sessionId, items: evaluationsOf(this.readers.store, this.readers.reader, sessionId) };
      },
      evaluation: ({ evalSessionId }) => {
        const sessionId = this.session();
        // Only an evaluation of the session shown (or the one shown): the page cannot read other sessions through it.
        if (!evaluationsOf(this.readers.store, this.readers.reader, sessionId).some((e) => e.evalSessionId === evalSessionId))
          throw new Error(`${evalSessionId} is not an evaluation of ${sessionId}`);
        return { sessionId, report: evaluationReport(this.readers.reader, evalSessionId) };
      },
      openLink: async ({ url }) => {
        // The page makes links of openable addresses only; a page that asks for another is not believed.
        const target = openableUrl(url);
        if (target === null) throw new Error(`not opened: only ${OPENABLE_SCHEMES.join(', ')} links open, not ${JSON.stringify(url.slice(0, 200))}`);
        if (this.host.openExternal === undefined) throw new Error('links do not open here');
        return { opened: await this.host.openExternal(target) };
      },
    };
  }

  /** `source`, then the selected session's transcript and usage. */
  private announce(): void {
    this.postSource();
    if (this.selected !== null) this.postTranscript(this.selected);
    this.postedUsage = null;
    this.family = null;
    this.postUsage();
  }

  /** The selected session's requests and tokens, own and rolled up, when they are not what the page was told. */
  private postUsage(): void {
    const sessionId = this.selected;
    if (sessionId === null) return;
    const { store } = this.readers;
    const family = (this.family ??= childrenBySession(store));
    this.usageFrom = new Set(sessionsBelow(sessionId, family));
    const usage = sessionUsages(store, family, [sessionId]).get(sessionId) ?? { own: NO_USAGE, rolledUp: NO_USAGE, descendants: 0 };
    const told = this.postedUsage;
    if (told !== null && sameUsage(told.own, usage.own) && sameUsage(told.rolledUp, usage.rolledUp) && told.descendants === usage.descendants) return;
    this.postedUsage = usage;
    this.post({ type: 'usage', sessionId, ...usage });
  }

  private postSource(): void {
    const { store, reader, titles } = this.readers;
    const sessions = store.sessions().sort((a, b) => b.lastCreatedAt - a.lastCreatedAt);
    this.known = new Set(sessions.map((s) => s.sessionId));
    this.sessionsGrew = false;
    this.selected ??= sessions[0]?.sessionId ?? null;
    this.post({
      type: 'source',
      label: this.source.label,
      readOnly: this.source.readOnly,
      sessions: sessions.map((s) => ({ sessionId: s.sessionId, title: titles.title(s.sessionId), entryCount: s.entryCount, lastCreatedAt: s.lastCreatedAt })),
      sessionId: this.selected,
      headEntryId: this.selected === null ? 0 : reader.headEntryId(this.selected),
    });
  }

  private postTranscript(sessionId: string): void {
    const headEntryId = this.readers.reader.headEntryId(sessionId);
    const page = this.readers.transcript.lastPage(sessionId);
    this.post({ type: 'transcript', sessionId, headEntryId, ...page });
    if (sessionId === this.selected) {
      this.postedHead = headEntryId;
      this.transcriptFrom = page.offset;
    }
  }

  private listen(): Disposable {
    return this.source.store.onDidAppend((e) => {
      if (!this.known.has(e.sessionId)) this.sessionsGrew = true;
      const below = this.usageFrom.has(e.sessionId);
      if (this.sessionsGrew || ((below || e.sessionId === this.selected) && this.linksIn(e))) this.family = null;
      if (this.sessionsGrew || below || e.sessionId === this.selected) this.timer ??= setTimeout(() => this.flush(), this.batchMs);
    });
  }

  /** Whether an append holds a subagent link (its child joins the tree below its parent). */
  private linksIn(e: { sessionId: string; firstEntryId: number; lastEntryId: number }): boolean {
    return this.source.store.entries(e.sessionId, { kind: 'event', name: SUBAGENT_LINKED, fromEntryId: e.firstEntryId, toEntryId: e.lastEntryId }).length > 0;
  }

  /** One batch: a new `source` if a session appeared, the usage if it changed, then one `appended` with what the page has not seen. */
  private flush(): void {
    this.timer = undefined;
    if (!this.started || this.disposed) return;
    this.guarded(() => {
      if (this.sessionsGrew) {
        const hadSession = this.selected !== null;
        this.postSource();
        // The first session of an empty tape: the page has no transcript yet.
        if (!hadSession && this.selected !== null) this.postTranscript(this.selected);
      }
      this.postUsage();
      const sessionId = this.selected;
      if (sessionId === null) return;
      const { reader, transcript } = this.readers;
      const head = reader.headEntryId(sessionId);
      if (head <= this.postedHead) return;
      const rows = reader.entries(sessionId, { fromEntryId: this.postedHead + 1, toEntryId: head }).map(entryRowOf);
      const items = transcript.changedSince(sessionId, this.postedHead, this.transcriptFrom);
      const checkpointsFrom = transcript.checkpointsFrom(sessionId);
      this.postedHead = head;
      this.post({ type: 'appended', sessionId, headEntryId: head, rows, transcript: items, ...(checkpointsFrom === null ? {} : { checkpointsFrom }) });
    });
  }

  private session(): string {
    if (this.selected === null) throw new Error('no session is selected: the tape has none yet');
    return this.selected;
  }

  private guarded(fn: () => void): void {
    try {
      fn();
    } catch (e) {
      this.post({ type: 'error', message: errorMessage(e) });
    }
  }

  private post(m: HostToInspector): void {
    if (this.disposed) return;
    try {
      this.host.post(m);
    } catch {
      // A page that went away while we answered: nothing to tell it.
    }
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
