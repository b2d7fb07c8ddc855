import type { AnchorAmendmentsInfo, AnchorItem, CompactionAmendment, CompactionAuditSummary, MissingFact } from '../../src/protocol/inspector';
import { AUDIT_FACT_KINDS } from '../../src/protocol/inspector';
import { errorMessage } from '../../src/tape/errorMessage';
import type { CompactionActions } from './compactionActions';
import { badge, h, num, prettyJson, time, type Child } from './dom';
import { markdownTree } from './markdownTree';
import type { TapeText } from './tapeText';

type FactKind = MissingFact['kind'];
const NOUNS: Record<FactKind, [string, string]> = {
  path: ['path', 'paths'],
  command: ['command', 'commands'],
  error: ['error', 'errors'],
  request: ['request', 'requests'],
  tool: ['tool', 'tools'],
};
const TITLES: Record<FactKind, string> = { path: 'Paths', command: 'Commands', error: 'Errors', request: 'Requests', tool: 'Tools' };
/** A fact seen at many entries lists the first of them; the Entries view has the rest. */
const MAX_IDS_PER_FACT = 20;

const noun = (kind: FactKind, n: number): string => NOUNS[kind][n === 1 ? 0 : 1];

/** "keeps 4 of 23 paths, 1 of 9 commands, …": every kind, so a kind with no facts reads as such. */
export function auditLine(audit: CompactionAuditSummary): string {
  const parts = AUDIT_FACT_KINDS.map((k) => `${num(audit.totals[k].inSummary)} of ${num(audit.totals[k].facts)} ${noun(k, audit.totals[k].facts)}`);
  return `keeps ${parts.join(', ')}`;
}

const isMac = /Mac|iPhone|iPad/.test(navigator.platform);

/**
 * A reconstruction anchor's state split for reading: its summary (a compaction's summary, a
 * handoff's notes) as text, and the rest of the state (`undefined` when nothing is left). State
 * that is not JSON (never from the host) is all rest, as it came.
 */
export function splitState(a: Pick<AnchorItem, 'state' | 'checkpoint'>): { summary: string | null; rest: unknown } {
  let state: unknown;
  try {
    state = JSON.parse(a.state);
  } catch {
    return { summary: null, rest: a.state };
  }
  // Only reconstruction anchors (the ones with a checkpoint) have a summary; another's `summary` is just state.
  if (a.checkpoint === null) return { summary: null, rest: state };
  if (typeof state === 'string') return { summary: state, rest: undefined };
  if (typeof state !== 'object' || state === null || Array.isArray(state) || !('summary' in state) || typeof state.summary !== 'string')
    return { summary: null, rest: state };
  const { summary, ...rest } = state;
  return { summary, rest: Object.keys(rest).length === 0 ? undefined : rest };
}

/** The summary editor of the compaction in force: kept across re-renders, so the tape growing meanwhile loses no typing. */
interface SummaryEditor {
  anchorEntryId: number;
  element: HTMLElement;
  textarea: HTMLTextAreaElement;
  /** The text it opened with: saving it unchanged appends nothing. */
  initial: string;
}

/**
 * The anchors as a timeline, oldest first; the one the next request starts from is marked "in
 * force". The compaction amendments apply to offers Pin on each fact its summary left out, Edit
 * Summary… and Undo Compaction, where this window may write the tape; each appends one entry, and
 * the view refreshes when the host reports the append.
 */
export class AnchorsView {
  private readonly list = h('ol', { class: 'timeline', 'aria-label': 'Anchors' });
  readonly element: HTMLElement;
  private sessionId: string | null = null;
  private items: AnchorItem[] = [];
  private editor: SummaryEditor | null = null;
  /** What the last amendment said (or why it was refused), shown on its anchor until the next. */
  private status: { anchorEntryId: number; text: string; failed: boolean } | null = null;
  /** An amendment on its way: the buttons wait for its answer. */
  private busy = false;

  /** `reveal` shows an entry in the Entries view, as the host's reveal does. */
  constructor(
    private readonly reveal: (entryId: number) => void,
    private readonly actions: CompactionActions,
    private readonly text: TapeText,
  ) {
    this.element = h('div', { class: 'anchors' }, h('div', { class: 'anchors-bar' }, text.control()), this.list);
    actions.onChange(() => this.render());
    text.onChange(() => this.render());
  }

  set(sessionId: string, items: AnchorItem[]): void {
    if (sessionId !== this.sessionId) {
      this.editor = null;
      this.status = null;
    }
    this.sessionId = sessionId;
    this.items = items;
    this.render();
  }

  /** Scrolls the anchor into view and focuses it; false when the session has no such anchor. */
  focusAnchor(entryId: number): boolean {
    const li = this.element.querySelector<HTMLElement>(`.anchor[data-entry-id="${entryId}"]`);
    if (li === null) return false;
    for (const other of this.element.querySelectorAll('.anchor.selected')) other.classList.remove('selected');
    li.classList.add('selected');
    li.scrollIntoView({ block: 'start' });
    li.focus();
    return true;
  }

  private render(): void {
    const focusedAnchor = this.element.contains(document.activeElement) ? document.activeElement?.closest<HTMLElement>('.anchor')?.dataset.entryId : undefined;
    const amendable = this.actions.enabled ? this.items.find((a) => a.amendable !== null) : undefined;
    if (this.editor !== null && this.editor.anchorEntryId !== amendable?.entryId) this.editor = null;
    if (this.items.length === 0) {
      this.list.replaceChildren(h('li', { class: 'muted' }, 'No anchors in this session.'));
      return;
    }
    this.list.replaceChildren(...this.items.map((a) => this.anchor(a, a === amendable)));
    // A press re-renders the view: the focus stays on the anchor it was in, not lost to the page.
    if (focusedAnchor !== undefined && !this.element.contains(document.activeElement))
      this.element.querySelector<HTMLElement>(`.anchor[data-entry-id="${focusedAnchor}"]`)?.focus();
  }

  private anchor(a: AnchorItem, amendable: boolean): HTMLElement {
    const undone = a.amendments?.undoneBy != null;
    const { summary, rest } = splitState(a);
    return h(
      'li',
      {
        class: ['anchor', a.inForce ? 'in-force' : '', undone ? 'undone' : ''].filter(Boolean).join(' '),
        'aria-current': a.inForce ? 'true' : undefined,
        'data-entry-id': a.entryId,
        // Focusable by script only: "Review" and a press that re-renders the view put the focus here.
        tabindex: -1,
      },
      h(
        'header',
        {},
        h('span', { class: 'anchor-name' }, a.name),
        ' ',
        a.inForce ? badge('in force', 'marker-in-force') : null,
        undone ? badge('undone', 'marker-undone') : null,
        h('span', { class: 'muted' }, ` #${a.entryId} · ${time(a.createdAt)}`),
      ),
      a.amendments === null ? null : this.amendments(a.amendments),
      amendable ? this.actionBar(a) : null,
      this.status?.anchorEntryId === a.entryId
        ? h('p', { class: this.status.failed ? 'amend-status failed' : 'amend-status', role: this.status.failed ? 'alert' : 'status' }, this.status.text)
        : null,
      amendable && this.editor !== null ? this.editor.element : null,
      a.audit === null ? null : this.audit(a.audit, a.entryId, amendable ? a : null),
      summary === null ? null : this.summary(a, summary),
      rest === undefined
        ? null
        : this.collapsible(
            a.entryId,
            'anchor-state',
            'State',
            h('pre', { class: 'json' }, typeof rest === 'string' ? prettyJson(rest) : JSON.stringify(rest, null, 2)),
          ),
      a.checkpoint === null
        ? null
        : this.collapsible(a.entryId, 'anchor-checkpoint', 'Checkpoint: what a request from here reads first', h('pre', { class: 'checkpoint' }, a.checkpoint)),
    );
  }

  /** A compaction's summary or a handoff's notes, as the anchor wrote them: readable, not a JSON string. */
  private summary(a: AnchorItem, summary: string): HTMLElement {
    const label = a.name.startsWith('compaction/') ? 'Summary' : 'Notes';
    const text = h('div', { class: 'anchor-summary-text' });
    if (this.text.raw) this.text.showRaw(text, summary);
    else this.text.showRendered(text, markdownTree(summary));
    // The edit in force is what the checkpoint reads; this is the anchor's own text.
    const edited = a.amendments?.summaryEntryId != null ? ' (as first written; edited since)' : '';
    return h('section', { class: 'anchor-summary', 'aria-label': `${label} of ${a.name} #${a.entryId}` }, h('h4', {}, label + edited), text);
  }

  /** A details element that stays open across the re-render an amendment or the tape's growth brings. */
  private collapsible(anchorEntryId: number, cls: string, title: string, ...body: Child[]): HTMLElement {
    return h('details', { class: cls, open: this.wasOpen(anchorEntryId, cls) }, h('summary', {}, title), ...body);
  }

  private wasOpen(anchorEntryId: number, cls: string): boolean {
    return this.list.querySelector(`.anchor[data-entry-id="${anchorEntryId}"] .${cls}`)?.hasAttribute('open') ?? false;
  }

  private entryRef(id: number): HTMLElement {
    const button = h('button', { type: 'button', class: 'link entry-ref', 'aria-label': `Show entry #${id} in Entries` }, `#${id}`);
    button.addEventListener('click', () => this.reveal(id));
    return button;
  }

  /** "2 pins #31 #40 · summary edited #41 · undone by #52", each entry id a way to it. */
  private amendments(m: AnchorAmendmentsInfo): HTMLElement {
    const parts: Child[][] = [];
    if (m.pins.length > 0)
      parts.push([
        `${num(m.pins.length)} ${m.pins.length === 1 ? 'pin' : 'pins'} `,
        ...m.pins.flatMap((id, i) => (i === 0 ? [this.entryRef(id)] : [' ', this.entryRef(id)])),
      ]);
    if (m.summaryEntryId !== null) parts.push(['summary edited ', this.entryRef(m.summaryEntryId)]);
    if (m.undoneBy !== null) parts.push(['undone by ', this.entryRef(m.undoneBy)]);
    return h('p', { class: 'amendments' }, ...parts.flatMap((p, i) => (i === 0 ? p : [' · ', ...p])));
  }

  private actionBar(a: AnchorItem): HTMLElement {
    const edit = h('vscode-button', { class: 'edit-summary', secondary: true, icon: 'edit', disabled: this.busy || this.editor !== null }, 'Edit Summary…');
    edit.addEventListener('click', () => this.openEditor(a));
    const undo = h('vscode-button', { class: 'undo-compaction', secondary: true, icon: 'discard', disabled: this.busy }, 'Undo Compaction');
    undo.addEventListener('click', () => void this.amend(a.entryId, { kind: 'undo' }));
    return h('div', { class: 'amend-actions', role: 'group', 'aria-label': `Amend ${a.name} #${a.entryId}` }, edit, ' ', undo);
  }

  private openEditor(a: AnchorItem): void {
    if (a.amendable === null || this.editor !== null) return;
    const initial = a.amendable.summary;
    const textarea = h('textarea', { class: 'summary-editor', rows: 10, 'aria-label': `Summary of ${a.name} #${a.entryId}`, spellcheck: 'false' });
    textarea.value = initial;
    const save = h('vscode-button', { class: 'summary-save' }, 'Save');
    const cancel = h('vscode-button', { class: 'summary-cancel', secondary: true }, 'Cancel');
    save.addEventListener('click', () => void this.saveEditor());
    cancel.addEventListener('click', () => this.closeEditor());
    const element = h(
      'section',
      { class: 'summary-edit', role: 'group', 'aria-label': 'Edit the summary' },
      textarea,
      h('div', { class: 'summary-edit-buttons' }, save, ' ', cancel, h('span', { class: 'muted' }, ` ${isMac ? '⌘' : 'Ctrl'}+Enter saves, Escape cancels`)),
    );
    element.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
        e.preventDefault();
        void this.saveEditor();
      } else if (e.key === 'Escape') {
        e.preventDefault();
        this.closeEditor();
      }
    });
    this.editor = { anchorEntryId: a.entryId, element, textarea, initial };
    this.render();
    // After the key that opened it is done: an Enter on Edit Summary… would otherwise land in the text.
    setTimeout(() => textarea.focus(), 0);
  }

  /** Back to the anchor, with the focus on Edit Summary… where the editor was opened from. */
  private closeEditor(): void {
    const id = this.editor?.anchorEntryId;
    this.editor = null;
    this.render();
    // A new vscode-button takes the focus once it has rendered (it sets its tabindex then).
    const edit = id === undefined ? null : this.element.querySelector<HTMLElement>(`.anchor[data-entry-id="${id}"] .edit-summary`);
    if (edit !== null) setTimeout(() => edit.focus(), 0);
  }

  private async saveEditor(): Promise<void> {
    const editor = this.editor;
    if (editor === null || this.busy) return;
    const summary = editor.textarea.value;
    if (summary.trim() === editor.initial.trim()) {
      this.status = { anchorEntryId: editor.anchorEntryId, text: 'The summary is unchanged: nothing was appended.', failed: false };
      return this.closeEditor();
    }
    if (await this.amend(editor.anchorEntryId, { kind: 'edit', summary })) this.closeEditor();
  }

  /** Resolves to whether it was appended; a refusal stays on the anchor in words, and the editor stays open with the text. */
  private async amend(anchorEntryId: number, amendment: CompactionAmendment): Promise<boolean> {
    if (this.busy) return false;
    this.busy = true;
    this.render();
    try {
      const done = await this.actions.amend(anchorEntryId, amendment);
      this.status = { anchorEntryId, text: done.message, failed: false };
      return done.entryId !== null;
    } catch (e) {
      this.status = { anchorEntryId, text: `Not amended: ${errorMessage(e)}`, failed: true };
      return false;
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /** What the summary kept, then what it left out by kind, each fact with the entries it occurs at. */
  private audit(audit: CompactionAuditSummary, anchorEntryId: number, amendable: AnchorItem | null): HTMLElement {
    const { from, to } = audit.range;
    const range = from === null || to === null ? 'an empty range' : `#${from}–#${to}`;
    const line = h('p', { class: 'audit-line' }, h('span', { class: 'muted' }, `Summary of ${range}: `), auditLine(audit));
    const missingTotal = audit.missing.length + audit.missingOmitted;
    if (missingTotal === 0) return h('section', { class: 'audit', 'aria-label': 'Compaction audit' }, line);
    const groups = AUDIT_FACT_KINDS.map((k) => [k, audit.missing.filter((f) => f.kind === k)] as const)
      .filter(([, facts]) => facts.length > 0)
      .map(([k, facts]) =>
        h(
          'div',
          { class: 'audit-group', 'data-kind': k },
          h('h5', {}, `${TITLES[k]} (${num(facts.length)})`),
          h('ul', { class: 'audit-facts' }, ...facts.map((f) => this.fact(f, amendable))),
        ),
      );
    return h(
      'section',
      { class: 'audit', 'aria-label': 'Compaction audit' },
      line,
      this.collapsible(
        anchorEntryId,
        'audit-missing',
        `${num(missingTotal)} ${missingTotal === 1 ? 'fact' : 'facts'} not in the summary`,
        ...groups,
        audit.missingOmitted > 0 ? h('p', { class: 'muted audit-more' }, `and ${num(audit.missingOmitted)} more`) : null,
      ),
    );
  }

  /** A fact with where it occurs; on the compaction in force, Pin (the fact) and Pin Entries (where it occurs, verbatim). */
  private fact(f: MissingFact, amendable: AnchorItem | null): HTMLElement {
    const ids = f.entryIds.slice(0, MAX_IDS_PER_FACT).map((id) => this.entryRef(id));
    const rest = f.entryIds.length - ids.length;
    return h(
      'li',
      { 'data-kind': f.kind },
      h('span', { class: 'fact-value' }, f.value),
      h('span', { class: 'fact-ids' }, ' at ', ...ids.flatMap((b, i) => (i === 0 ? [b] : [' ', b])), rest > 0 ? ` and ${num(rest)} more` : null),
      amendable === null ? null : this.pinButtons(f, amendable),
    );
  }

  private pinButtons(f: MissingFact, a: AnchorItem): HTMLElement {
    const m = a.amendments;
    const factPinned = m?.pinnedFacts.some((p) => p.kind === f.kind && p.value === f.value) ?? false;
    const unpinned = f.entryIds.filter((id) => !(m?.pinnedEntryIds.includes(id) ?? false));
    const button = (cls: string, label: string, text: string, amendment: CompactionAmendment): HTMLElement => {
      const b = h('button', { type: 'button', class: `pin ${cls}`, 'aria-label': label, disabled: this.busy }, text);
      b.addEventListener('click', () => void this.amend(a.entryId, amendment));
      return b;
    };
    const what = `${NOUNS[f.kind][0]} ${f.value.length > 60 ? `${f.value.slice(0, 59)}…` : f.value}`;
    return h(
      'span',
      { class: 'pin-actions' },
      factPinned ? badge('pinned', 'marker-pinned') : button('pin-fact', `Pin the ${what}`, 'Pin', { kind: 'pin', facts: [{ kind: f.kind, value: f.value }] }),
      unpinned.length === 0
        ? badge('entries pinned', 'marker-pinned')
        : button('pin-entries', `Pin the ${unpinned.length === 1 ? 'entry' : `${num(unpinned.length)} entries`} of the ${what}`, 'Pin Entries', {
            kind: 'pin',
            entryIds: unpinned,
          }),
    );
  }
}
