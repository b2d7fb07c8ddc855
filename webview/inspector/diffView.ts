import type { RequestDiff } from '../../src/protocol/inspector';
import { h, num, signed } from './dom';

const show = (v: string | number | null): string => (v === null ? 'none' : typeof v === 'number' ? `#${v}` : v);

/** What changed between two requests' contexts, and what stayed for a prompt cache to reuse. */
export function diffView(d: RequestDiff): HTMLElement {
  const changes: HTMLElement[] = [];
  if (d.anchor) changes.push(h('li', {}, `Anchor: ${show(d.anchor.from)} → ${show(d.anchor.to)}`));
  if (d.policy) changes.push(h('li', {}, `Policy: ${d.policy.from} → ${d.policy.to}`));
  if (d.model) changes.push(h('li', {}, `Model: ${d.model.from} → ${d.model.to}`));
  if (d.promptChanged) changes.push(h('li', {}, 'System prompt changed'));
  if (d.toolsChanged) changes.push(h('li', {}, 'Tools changed'));
  for (const r of d.reasonChanges) changes.push(h('li', {}, `${r.list} ${show(r.entryId)}: ${r.from} → ${r.to}`));
  const t = d.tokens;
  return h(
    'section',
    { class: 'diff', 'aria-label': `Diff of request #${d.a} and #${d.b}` },
    h('h3', {}, `Request #${d.a} → #${d.b}`),
    h(
      'p',
      { class: 'unchanged-prefix' },
      `Unchanged prefix: ${num(d.unchangedPrefix.items)} items, ${num(d.unchangedPrefix.tokens)} tokens a prompt cache can reuse`,
    ),
    h(
      'dl',
      { class: 'token-deltas' },
      h('dt', {}, 'Estimated prompt'),
      h('dd', { 'data-delta': 'estimatedPrompt' }, `${num(t.estimatedPrompt.from)} → ${num(t.estimatedPrompt.to)} (${signed(t.estimatedPrompt.delta)})`),
      h('dt', {}, 'Included items'),
      h('dd', { 'data-delta': 'included' }, `${num(t.included.from)} → ${num(t.included.to)} (${signed(t.included.delta)})`),
    ),
    changes.length
      ? h('ul', { class: 'changes', 'aria-label': 'Changes' }, ...changes)
      : h('p', { class: 'muted' }, 'No anchor, policy, model, prompt or tool changes.'),
    itemTable(
      'Added',
      d.added.map((a) => [show(a.entryId), a.role, a.reason, num(a.tokens)]),
      ['Entry', 'Role', 'Reason', 'Tokens'],
      'diff-added',
    ),
    itemTable(
      'Removed',
      d.removed.map((r) => [show(r.entryId), r.role, r.reason, r.excludedAs ?? '—', num(r.tokens)]),
      ['Entry', 'Role', 'Reason', 'Excluded as', 'Tokens'],
      'diff-removed',
    ),
  );
}

function itemTable(caption: string, rows: string[][], head: string[], cls: string): HTMLElement {
  if (rows.length === 0) return h('p', { class: `muted ${cls}` }, `${caption}: none`);
  return h(
    'table',
    { class: `data ${cls}` },
    h('caption', {}, `${caption} (${rows.length})`),
    h('thead', {}, h('tr', {}, ...head.map((c) => h('th', { scope: 'col' }, c)))),
    h('tbody', {}, ...rows.map((r) => h('tr', {}, ...r.map((c) => h('td', {}, c))))),
  );
}
