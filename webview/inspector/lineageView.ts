import type { LineageView as Lineage } from '../../src/protocol/inspector';
import { badge, h, time } from './dom';

/** A fork's or subagent's id is long; its tail names it among its siblings. Any other id is cut at 24 characters. */
export function shortSessionName(sessionId: string): string {
  const fork = sessionId.lastIndexOf('::fork::');
  if (fork >= 0) return `fork ${sessionId.slice(fork + '::fork::'.length)}`;
  const sub = sessionId.lastIndexOf('::subagent::');
  if (sub >= 0) return `subagent ${sessionId.slice(sub + '::subagent::'.length, sub + '::subagent::'.length + 8)}`;
  // An ingested subagent: `<parent>/agent-<id>` (src/store/forks.ts).
  const agent = sessionId.lastIndexOf('/agent-');
  if (agent >= 0) return `subagent ${sessionId.slice(agent + '/agent-'.length, agent + '/agent-'.length + 8)}`;
  return sessionId.length > 24 ? `${sessionId.slice(0, 23)}…` : sessionId;
}

/**
 * A session among its relatives: the chain it descends from (root first, with the fork points),
 * its forks and subagents with their state and receipt, and its lineage entries in words. Another
 * session is a button that opens it in this inspector; each fork or subagent has a Compare button
 * that opens the two sessions' comparison ("Compare With…") beside it.
 */
export class LineageView {
  readonly element = h('div', { class: 'lineage' });

  constructor(
    private readonly open: (sessionId: string) => void,
    private readonly compare: (shownSessionId: string, otherSessionId: string) => void,
  ) {}

  set(sessionId: string, v: Lineage): void {
    const ref = (id: string, title: string | null): HTMLElement => {
      const label = `${title ?? 'Untitled session'} (${shortSessionName(id)})`;
      if (id === sessionId) return h('span', { class: 'session-ref current', title: id }, label);
      const button = h('button', { type: 'button', class: 'session-ref link', title: id, 'aria-label': `Open ${label} in the inspector` }, label);
      button.addEventListener('click', () => this.open(id));
      return button;
    };
    const compareButton = (id: string): HTMLElement => {
      const button = h(
        'button',
        { type: 'button', class: 'compare', title: `Compare ${sessionId} with ${id}`, 'aria-label': `Compare with ${shortSessionName(id)}` },
        'Compare',
      );
      button.addEventListener('click', () => this.compare(sessionId, id));
      return button;
    };
    const chain = h(
      'ol',
      { class: 'lineage-chain', 'aria-labelledby': 'lineage-chain-title' },
      ...v.ancestors.map((a) =>
        h(
          'li',
          { 'aria-current': a.sessionId === sessionId ? 'page' : undefined },
          badge(a.relation, `relation-${a.relation}`),
          ' ',
          ref(a.sessionId, a.title),
          a.at === null ? null : h('span', { class: 'muted' }, ` from its parent's #${a.at}`),
        ),
      ),
    );
    const children =
      v.children.length === 0
        ? h('p', { class: 'muted' }, 'No forks or subagents.')
        : h(
            'ul',
            { class: 'lineage-children', 'aria-labelledby': 'lineage-children-title' },
            ...v.children.map((c) =>
              h(
                'li',
                { class: 'child', 'data-state': c.state },
                h(
                  'header',
                  {},
                  badge(c.state, `state-${c.state}`),
                  ' ',
                  badge(c.relation, `relation-${c.relation}`),
                  ' ',
                  ref(c.sessionId, c.title),
                  c.receiptEntryId === null ? null : h('span', { class: 'receipt-ref' }, `receipt #${c.receiptEntryId}`),
                  ' ',
                  compareButton(c.sessionId),
                ),
                // The task when the title is not all of it (a description, or a task cut short).
                c.task === null || c.task === c.title ? null : h('p', { class: 'child-task', title: c.task }, c.task),
                c.receipt === '' ? null : h('p', { class: 'receipt-text' }, c.receipt),
              ),
            ),
          );
    const receipts =
      v.receipts.length === 0
        ? h('p', { class: 'muted' }, 'No fork, merge, discard or subagent entries.')
        : h(
            'ol',
            { class: 'timeline receipts', 'aria-labelledby': 'lineage-receipts-title' },
            ...v.receipts.map((r) =>
              h(
                'li',
                { class: 'anchor receipt' },
                h('header', {}, h('span', { class: 'anchor-name' }, r.name), h('span', { class: 'muted' }, ` #${r.entryId} · ${time(r.createdAt)}`)),
                h('p', { class: 'receipt-text' }, r.summary),
              ),
            ),
          );
    this.element.replaceChildren(
      h('section', {}, h('h3', { id: 'lineage-chain-title' }, 'Lineage'), chain),
      h('section', {}, h('h3', { id: 'lineage-children-title' }, 'Forks and subagents'), children),
      h('section', {}, h('h3', { id: 'lineage-receipts-title' }, 'Receipts'), receipts),
    );
  }
}
