import type { AnchorItem, CompactionAuditSummary, MissingFact } from '../../src/protocol/inspector';
import { AUDIT_FACT_KINDS } from '../../src/protocol/inspector';
import { badge, h, num, prettyJson, time } from './dom';

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

/** The anchors as a timeline, oldest first; the one the next request starts from is marked "in force". */
export class AnchorsView {
  readonly element = h('ol', { class: 'timeline', 'aria-label': 'Anchors' });

  /** `reveal` shows an entry in the Entries view, as the host's reveal does. */
  constructor(private readonly reveal: (entryId: number) => void) {}

  set(items: AnchorItem[]): void {
    if (items.length === 0) {
      this.element.replaceChildren(h('li', { class: 'muted' }, 'No anchors in this session.'));
      return;
    }
    this.element.replaceChildren(
      ...items.map((a) =>
        h(
          'li',
          { class: a.inForce ? 'anchor in-force' : 'anchor', 'aria-current': a.inForce ? 'true' : undefined, 'data-entry-id': a.entryId },
          h(
            'header',
            {},
            h('span', { class: 'anchor-name' }, a.name),
            ' ',
            a.inForce ? badge('in force', 'marker-in-force') : null,
            h('span', { class: 'muted' }, ` #${a.entryId} · ${time(a.createdAt)}`),
          ),
          a.audit === null ? null : this.audit(a.audit),
          h('h4', {}, 'State'),
          h('pre', { class: 'json' }, prettyJson(a.state)),
          h('h4', {}, 'Checkpoint'),
          a.checkpoint === null ? h('p', { class: 'muted' }, 'None') : h('pre', { class: 'checkpoint' }, a.checkpoint),
        ),
      ),
    );
  }

  /** What the summary kept, then what it left out by kind, each fact with the entries it occurs at. */
  private audit(audit: CompactionAuditSummary): HTMLElement {
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
          h('ul', { class: 'audit-facts' }, ...facts.map((f) => this.fact(f))),
        ),
      );
    return h(
      'section',
      { class: 'audit', 'aria-label': 'Compaction audit' },
      line,
      h(
        'details',
        { class: 'audit-missing' },
        h('summary', {}, `${num(missingTotal)} ${missingTotal === 1 ? 'fact' : 'facts'} not in the summary`),
        ...groups,
        audit.missingOmitted > 0 ? h('p', { class: 'muted audit-more' }, `and ${num(audit.missingOmitted)} more`) : null,
      ),
    );
  }

  private fact(f: MissingFact): HTMLElement {
    const ids = f.entryIds.slice(0, MAX_IDS_PER_FACT).map((id) => {
      const button = h('button', { type: 'button', class: 'link entry-ref', 'aria-label': `Show entry #${id} in Entries` }, `#${id}`);
      button.addEventListener('click', () => this.reveal(id));
      return button;
    });
    const rest = f.entryIds.length - ids.length;
    return h(
      'li',
      {},
      h('span', { class: 'fact-value' }, f.value),
      h('span', { class: 'fact-ids' }, ' at ', ...ids.flatMap((b, i) => (i === 0 ? [b] : [' ', b])), rest > 0 ? ` and ${num(rest)} more` : null),
    );
  }
}
