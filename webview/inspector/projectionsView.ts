import type { ProjectionsView as Projections } from '../../src/protocol/inspector';
import { badge, h, num } from './dom';

/** Where the gauge's window comes from, in words. */
function windowBasis(p: Projections['contextPressure']): string {
  if (p.windowSource === 'manifest') return `the window of ${p.model ?? 'the model'} the last request was assembled for`;
  if (p.windowSource === 'model') return `the known window of ${p.model ?? 'its model'}`;
  return p.model === null ? 'an assumed window: the model is not recorded' : `an assumed window: ${p.model}'s is not known`;
}

/** What the tape folds to: title, todos, tool stats, token usage and how full the context is. */
export class ProjectionsView {
  readonly element = h('div', { class: 'projections' });

  set(v: Projections): void {
    const p = v.contextPressure;
    const percent = `${(p.ratio * 100).toFixed(1)}%`;
    this.element.replaceChildren(
      h('h3', {}, 'Title'),
      h('p', { class: 'title' }, v.title ?? 'Untitled'),
      h('h3', {}, 'Todos'),
      v.todos.length === 0
        ? h('p', { class: 'muted' }, 'None')
        : h('ul', { class: 'todos' }, ...v.todos.map((t) => h('li', {}, badge(t.status, `status-${t.status}`), ' ', t.content))),
      h('h3', {}, 'Tools'),
      v.toolStats.length === 0
        ? h('p', { class: 'muted' }, 'No tool calls')
        : h(
            'table',
            { class: 'data' },
            h('thead', {}, h('tr', {}, ...['Tool', 'Calls', 'OK', 'Error', 'Pending'].map((c) => h('th', { scope: 'col' }, c)))),
            h(
              'tbody',
              {},
              ...v.toolStats.map((t) =>
                h('tr', {}, h('th', { scope: 'row' }, t.name), ...[t.calls, t.ok, t.error, t.pending].map((n) => h('td', { class: 'n' }, num(n)))),
              ),
            ),
          ),
      h('h3', {}, 'Token usage'),
      h(
        'dl',
        {},
        h('dt', {}, 'Attempts'),
        h('dd', {}, num(v.tokenUsage.attempts)),
        h('dt', {}, 'Input'),
        h('dd', {}, num(v.tokenUsage.inputTokens)),
        h('dt', {}, 'Cached'),
        h('dd', {}, num(v.tokenUsage.cachedTokens)),
        h('dt', {}, 'Output'),
        h('dd', {}, num(v.tokenUsage.outputTokens)),
      ),
      h('h3', { id: 'pressure-label' }, 'Context pressure'),
      h(
        'div',
        { class: 'pressure' },
        h('meter', {
          min: 0,
          max: 1,
          low: 0.6,
          high: 0.85,
          optimum: 0,
          value: Math.min(1, p.ratio),
          'aria-labelledby': 'pressure-label',
          'aria-valuetext': percent,
        }),
        h('span', { class: 'pressure-text' }, `${percent} (${num(p.estimatedTokens)} of ${num(p.contextWindow)} tokens, ${windowBasis(p)})`),
      ),
    );
  }
}
