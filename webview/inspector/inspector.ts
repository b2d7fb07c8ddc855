import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-tab-header/index.js';
import '@vscode-elements/elements/dist/vscode-tab-panel/index.js';
import '@vscode-elements/elements/dist/vscode-tabs/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { VIEWS, type InspectorPush, type InspectorView } from '../../src/protocol/inspector';
import { AnchorsView } from './anchorsView';
import { ErrorBanner } from './banner';
import { HostChannel } from './channel';
import { CheckpointActions } from './checkpointActions';
import { CompactionActions } from './compactionActions';
import { h } from './dom';
import { EntriesView } from './entriesView';
import { EvaluationsView } from './evaluationsView';
import { ForkAction } from './forkAction';
import { Header } from './header';
import { LineageView } from './lineageView';
import { ProjectionsView } from './projectionsView';
import { RequestsView } from './requestsView';
import { RerunActions } from './rerunActions';
import { StateStore } from './state';
import { TapeText } from './tapeText';
import { TranscriptView } from './transcriptView';

const TITLES: Record<InspectorView, string> = {
  transcript: 'Transcript',
  entries: 'Entries',
  anchors: 'Anchors',
  requests: 'Requests',
  projections: 'Projections',
  lineage: 'Lineage',
  evaluations: 'Evaluations',
};
/** Views the host sends whole; after the tape grows they are asked for again, when shown. */
const WHOLE_VIEWS = ['anchors', 'requests', 'projections', 'lineage', 'evaluations'] as const satisfies InspectorView[];
type WholeView = (typeof WHOLE_VIEWS)[number];
const isWhole = (view: InspectorView): view is WholeView => (WHOLE_VIEWS as readonly InspectorView[]).includes(view);

/** The Tape Inspector: routes the host's pushes to the views and asks for what the shown view needs. */
export class Inspector {
  private readonly channel = new HostChannel(
    (m) => this.handle(m),
    (problem) => this.banner.show(problem),
  );
  private readonly store = new StateStore(this.channel.api);
  private readonly banner = new ErrorBanner();
  private readonly header = new Header(
    (id) => this.pickSession(id),
    (id) => this.channel.post({ type: 'command', command: 'agentTape.replaySession', args: [id] }),
    (id) => this.channel.post({ type: 'command', command: 'agentTape.exportSessionOtlp', args: [id] }),
  );
  private readonly forks = new ForkAction(this.channel);
  private readonly checkpoints = new CheckpointActions(this.channel);
  private readonly tapeText = new TapeText(this.channel, this.store);
  private readonly transcript = new TranscriptView(this.channel, this.forks, this.checkpoints, this.tapeText);
  private readonly entries = new EntriesView(this.channel, this.store, this.forks);
  private readonly compactions = new CompactionActions(this.channel);
  private readonly anchors = new AnchorsView((id) => this.revealEntry(id), this.compactions, this.tapeText);
  /** The anchor a `showAnchor` asked for, scrolled to when the anchors next arrive. */
  private preferAnchor: number | undefined;
  private readonly reruns = new RerunActions(this.channel);
  private readonly requests = new RequestsView(this.channel, this.reruns);
  private readonly evaluations = new EvaluationsView(this.channel, this.reruns);
  /** The evaluation a `showEvaluation` asked for, opened when the list next arrives. */
  private preferEvaluation: string | undefined;
  private readonly projections = new ProjectionsView();
  private readonly lineage = new LineageView(
    (id) => this.pickSession(id),
    (shown, other) => this.channel.post({ type: 'command', command: 'agentTape.compareSessions', args: [shown, other] }),
  );
  private readonly tabs: HTMLElement;
  private readonly failed = h('div', { class: 'failed', role: 'alert', hidden: true });
  private readonly placeholder = h('p', { class: 'muted' }, 'Loading…');
  /** The session the views show; undefined until the host first says what is open. */
  private sessionId: string | null | undefined;
  private restoreTried = false;
  private readonly loaded = new Set<InspectorView>();

  constructor(root: HTMLElement) {
    const bodies: Record<InspectorView, HTMLElement> = {
      transcript: this.transcript.element,
      entries: this.entries.element,
      anchors: this.anchors.element,
      requests: this.requests.element,
      projections: this.projections.element,
      lineage: this.lineage.element,
      evaluations: this.evaluations.element,
    };
    this.tabs = h(
      'vscode-tabs',
      { 'selected-index': VIEWS.indexOf(this.store.get().view), class: 'views' },
      // vscode-tabs gives headers and panels their ids and aria links itself; ours go in data-view.
      ...VIEWS.map((v) => h('vscode-tab-header', { 'data-view': v }, TITLES[v])),
      ...VIEWS.map((v) => h('vscode-tab-panel', { 'data-view': v }, bodies[v])),
    );
    this.tabs.addEventListener('vsc-tabs-select', (e) => this.show(VIEWS[(e as CustomEvent<{ selectedIndex: number }>).detail.selectedIndex]));
    this.tabs.hidden = true;
    root.replaceChildren(this.banner.element, this.header.element, this.placeholder, this.failed, this.tabs);
    this.channel.post({ type: 'ready' });
  }

  private handle(msg: InspectorPush): void {
    switch (msg.type) {
      case 'source':
        return this.onSource(msg);
      case 'failed':
        this.failed.textContent = `The tape could not be shown: ${msg.message}`;
        this.failed.hidden = false;
        this.tabs.hidden = true;
        this.placeholder.hidden = true;
        return;
      case 'transcript':
        if (msg.sessionId === this.sessionId) this.transcript.set(msg);
        return;
      case 'appended':
        return this.onAppended(msg);
      case 'reveal':
        return this.revealEntry(msg.entryId);
      case 'cursor':
        if (msg.sessionId !== this.sessionId) return;
        if (msg.entryId !== null) this.entries.follow(msg.entryId, this.loaded.has('entries'));
        this.transcript.markCursor(msg.entryId);
        return;
      case 'showEvaluation':
        if (msg.sessionId !== this.sessionId) return;
        this.preferEvaluation = msg.evalSessionId;
        this.loaded.delete('evaluations');
        return this.show('evaluations');
      case 'showAnchor':
        if (msg.sessionId !== this.sessionId) return;
        this.preferAnchor = msg.entryId;
        this.loaded.delete('anchors');
        return this.show('anchors');
      case 'usage':
        return this.header.showUsage(msg);
      case 'error':
        return this.banner.show(msg.message);
    }
  }

  private onSource(msg: Extract<InspectorPush, { type: 'source' }>): void {
    this.header.update(msg);
    this.failed.hidden = true;
    this.placeholder.hidden = msg.sessionId !== null;
    if (msg.sessionId === null) this.placeholder.textContent = 'This tape has no sessions yet.';
    this.tabs.hidden = msg.sessionId === null;
    const saved = this.store.get().sessionId;
    if (!this.restoreTried) {
      this.restoreTried = true;
      // After a reload the panel may reopen on another session than the one last looked at.
      if (saved !== null && saved !== msg.sessionId && msg.sessions.some((s) => s.sessionId === saved)) {
        this.channel.post({ type: 'selectSession', sessionId: saved });
        return;
      }
    }
    this.forks.update(msg.sessionId, msg.readOnly);
    this.checkpoints.update(msg.sessionId, msg.readOnly);
    this.reruns.update(msg.sessionId, msg.readOnly);
    this.compactions.update(msg.sessionId, msg.readOnly);
    if (msg.sessionId === this.sessionId) return;
    // A saved offset and selection belong to the saved session only.
    if (saved !== msg.sessionId) this.store.update({ sessionId: msg.sessionId, selectedEntryId: null, scrollTop: 0 });
    this.sessionId = msg.sessionId;
    this.loaded.clear();
    // The host follows a source that selects a session with the transcript's last page: asking for
    // it again would build it twice before the first paint.
    this.loaded.add('transcript');
    if (msg.sessionId !== null) this.show(this.store.get().view);
  }

  private onAppended(msg: Extract<InspectorPush, { type: 'appended' }>): void {
    if (msg.sessionId !== this.sessionId) return;
    this.entries.onAppended(msg.rows);
    if (this.loaded.has('transcript')) this.transcript.merge(msg.transcript, msg.headEntryId, msg.checkpointsFrom);
    for (const v of WHOLE_VIEWS) this.loaded.delete(v);
    const view = this.store.get().view;
    if (isWhole(view)) this.load(view);
  }

  private pickSession(sessionId: string): void {
    if (sessionId === this.sessionId) return;
    this.store.update({ sessionId, selectedEntryId: null, scrollTop: 0 });
    this.channel.post({ type: 'selectSession', sessionId });
  }

  /** The host's reveal and an entry id in another view both land here: the entry selected in Entries, with the focus. */
  private revealEntry(entryId: number): void {
    this.show('entries');
    this.entries.reveal(entryId);
    this.entries.focus();
  }

  private show(view: InspectorView): void {
    this.store.update({ view });
    this.tabs.setAttribute('selected-index', String(VIEWS.indexOf(view)));
    this.load(view);
    if (view === 'entries') requestAnimationFrame(() => this.entries.shown());
  }

  /** The transcript needs no asking: its last page comes with every source that selects a session. */
  private load(view: InspectorView): void {
    if (this.sessionId === null || this.sessionId === undefined || this.loaded.has(view)) return;
    this.loaded.add(view);
    if (view === 'entries') this.entries.start();
    else if (isWhole(view)) this.loadWhole(view);
  }

  /** A reply for a session the page no longer shows (it switched meanwhile) is dropped. */
  private loadWhole(view: WholeView): void {
    const ask = <R extends { sessionId: string }>(asked: Promise<R>, show: (reply: R) => void): void => {
      asked.then(
        (reply) => {
          if (reply.sessionId === this.sessionId) show(reply);
        },
        (e: unknown) => this.channel.report(e),
      );
    };
    switch (view) {
      case 'anchors':
        return ask(this.channel.request('anchors', {}), (r) => {
          this.anchors.set(r.sessionId, r.items);
          const prefer = this.preferAnchor;
          this.preferAnchor = undefined;
          if (prefer !== undefined && !this.anchors.focusAnchor(prefer)) this.banner.show(`Entry #${prefer} is not an anchor of this session.`);
        });
      case 'requests':
        return ask(this.channel.request('requests', {}), (r) => this.requests.set(r.items));
      case 'projections':
        return ask(this.channel.request('projections', {}), (r) => this.projections.set(r.view));
      case 'lineage':
        return ask(this.channel.request('lineage', {}), (r) => this.lineage.set(r.sessionId, r.view));
      case 'evaluations':
        return ask(this.channel.request('evaluations', {}), (r) => {
          this.evaluations.set(r.items, this.preferEvaluation);
          this.preferEvaluation = undefined;
        });
    }
  }
}
