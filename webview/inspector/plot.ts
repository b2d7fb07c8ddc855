import type { RequestItem } from '../../src/protocol/inspector';
import { h, num, svg } from './dom';

const W = 600;
const H = 160;
const PAD = 36;

/**
 * Prompt and cached tokens per request as an SVG line chart (no library). The lines differ in dash
 * as well as colour, and the chart carries a text summary; the requests table holds every value.
 * Prompt tokens are the provider's count when it reported one, else the estimate (0 without either).
 */
export function tokenPlot(items: RequestItem[], tableId: string): HTMLElement {
  const prompt = items.map((r) => r.promptTokens ?? 0);
  const cached = items.map((r) => r.cachedTokens ?? 0);
  const max = Math.max(1, ...prompt, ...cached);
  const x = (i: number) => PAD + (items.length < 2 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (items.length - 1));
  const y = (v: number) => H - PAD / 2 - (v / max) * (H - PAD);
  const line = (values: number[], cls: string) => svg('polyline', { class: cls, fill: 'none', points: values.map((v, i) => `${x(i)},${y(v)}`).join(' ') });
  const dots = (values: number[], cls: string) => values.map((v, i) => svg('circle', { class: cls, cx: x(i), cy: y(v), r: 3 }));
  const summary =
    items.length === 0
      ? 'No requests.'
      : `Prompt tokens per request, ${items.length} requests: from ${num(prompt[0])} to ${num(prompt[prompt.length - 1])}, at most ${num(Math.max(...prompt))}. ` +
        `Cached tokens: from ${num(cached[0])} to ${num(cached[cached.length - 1])}. Every value is in the requests table.`;
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, 'aria-describedby': tableId, class: 'plot' },
    svg('title', {}, summary),
    svg('line', { class: 'axis', x1: PAD, y1: H - PAD / 2, x2: W - PAD / 2, y2: H - PAD / 2 }),
    svg('line', { class: 'axis', x1: PAD, y1: PAD / 2, x2: PAD, y2: H - PAD / 2 }),
    svg('text', { class: 'tick', x: PAD - 4, y: PAD / 2 + 4, 'text-anchor': 'end' }, num(max)),
    svg('text', { class: 'tick', x: PAD - 4, y: H - PAD / 2, 'text-anchor': 'end' }, '0'),
    line(prompt, 'series-prompt'),
    line(cached, 'series-cached'),
    ...dots(prompt, 'series-prompt'),
    ...dots(cached, 'series-cached'),
  );
  return h(
    'figure',
    { class: 'plot-figure' },
    chart,
    h(
      'figcaption',
      {},
      h('span', { class: 'legend legend-prompt' }, 'prompt tokens (solid)'),
      ' ',
      h('span', { class: 'legend legend-cached' }, 'cached tokens (dashed)'),
    ),
  );
}
