import type { EvaluationRow } from '../../src/protocol/inspector';
import { h, num, signed, svg } from './dom';

const W = 600;
const H = 180;
const PAD = 40;
/** The band above the chart where each request's agreement is marked. */
const BAND = 22;

const SHAPES: Record<EvaluationRow['status'], (x: number, y: number) => SVGElement> = {
  agree: (x, y) => svg('circle', { class: 'mark-agree', cx: x, cy: y, r: 5 }),
  diverged: (x, y) => svg('path', { class: 'mark-diverged', d: `M${x - 5},${y - 5}L${x + 5},${y + 5}M${x - 5},${y + 5}L${x + 5},${y - 5}` }),
  failed: (x, y) => svg('rect', { class: 'mark-failed', x: x - 5, y: y - 5, width: 10, height: 10 }),
};

const delta = (r: EvaluationRow, side: 'input' | 'output'): number | null =>
  r.recordedTokens === null || r.rerunTokens === null ? null : r.rerunTokens[side] - r.recordedTokens[side];

/**
 * Agreement and token deltas over the session, as SVG (no library): a band of marks, one per
 * request, whose shape says agree (circle), diverged (cross) or failed (square), so the meaning
 * never rests on colour; below it the re-run's input and output tokens minus the recorded ones
 * (solid and dashed lines, a zero line). The chart carries a text summary; the table holds every value.
 */
export function evaluationPlot(rows: EvaluationRow[], tableId: string): HTMLElement {
  const input = rows.map((r) => delta(r, 'input'));
  const output = rows.map((r) => delta(r, 'output'));
  const known = [...input, ...output].filter((v): v is number => v !== null);
  const span = Math.max(1, ...known.map(Math.abs));
  const x = (i: number) => PAD + (rows.length < 2 ? (W - 2 * PAD) / 2 : (i * (W - 2 * PAD)) / (rows.length - 1));
  const top = BAND + PAD / 2;
  const bottom = H - PAD / 2;
  const y = (v: number) => (top + bottom) / 2 - (v / span) * ((bottom - top) / 2);
  const line = (values: (number | null)[], cls: string) =>
    svg('polyline', {
      class: cls,
      fill: 'none',
      points: values.flatMap((v, i) => (v === null ? [] : [`${x(i)},${y(v)}`])).join(' '),
    });
  const count = (s: EvaluationRow['status']) => rows.filter((r) => r.status === s).length;
  const sum = (values: (number | null)[]) => values.reduce<number>((a, v) => a + (v ?? 0), 0);
  const summary =
    rows.length === 0
      ? 'No requests evaluated.'
      : `Agreement over ${rows.length} requests: ${count('agree')} agree, ${count('diverged')} diverged, ${count('failed')} failed` +
        `${rows.some((r) => r.status !== 'agree') ? `, the first at #${rows.find((r) => r.status !== 'agree')?.entryId}` : ''}. ` +
        `Token deltas (re-run minus recorded), input ${signed(sum(input))}, output ${signed(sum(output))} in all. Every value is in the table.`;
  const chart = svg(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': summary, 'aria-describedby': tableId, class: 'plot evaluation-plot' },
    svg('title', {}, summary),
    svg('line', { class: 'axis', x1: PAD, y1: y(0), x2: W - PAD / 2, y2: y(0) }),
    svg('line', { class: 'axis', x1: PAD, y1: top, x2: PAD, y2: bottom }),
    svg('text', { class: 'tick', x: PAD - 4, y: top + 4, 'text-anchor': 'end' }, signed(span)),
    svg('text', { class: 'tick', x: PAD - 4, y: y(0) + 4, 'text-anchor': 'end' }, '0'),
    svg('text', { class: 'tick', x: PAD - 4, y: bottom, 'text-anchor': 'end' }, signed(-span)),
    line(input, 'series-prompt'),
    line(output, 'series-cached'),
    ...rows.map((r, i) => SHAPES[r.status](x(i), BAND / 2 + 2)),
  );
  return h(
    'figure',
    { class: 'plot-figure' },
    chart,
    h(
      'figcaption',
      {},
      'Marks: ○ agree, ✕ diverged, □ failed. ',
      h('span', { class: 'legend legend-prompt' }, 'input token delta (solid)'),
      ' ',
      h('span', { class: 'legend legend-cached' }, 'output token delta (dashed)'),
      ` · scale ±${num(span)} tokens`,
    ),
  );
}
