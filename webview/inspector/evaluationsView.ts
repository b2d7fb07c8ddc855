import type { EvaluationListItem, EvaluationReport, ResponseSide } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';
import { badge, h, num, signed, time } from './dom';
import { evaluationPlot } from './evaluationPlot';
import type { RerunActions } from './rerunActions';

const TABLE_ID = 'evaluation-table';

const tokensText = (t: ResponseSide['tokens']): string => (t === null ? '—' : `${num(t.input)} in · ${num(t.output)} out · ${num(t.cached)} cached`);
const latencyText = (ms: number | null): string => (ms === null ? '—' : `${num(ms)} ms`);
const counts = (s: EvaluationListItem['summary']): string =>
  `${s.requests} requests: ${s.agree} agree, ${s.diverged} diverged, ${s.failed} failed${s.notEvaluated > 0 ? `, ${s.notEvaluated} not evaluated` : ''}`;

/**
 * The session's evaluations against a model (each recorded as an evaluation session): pick one to
 * see a row per request with agree / diverged / failed, a plot of agreement and token deltas over
 * the session, and the first request that did not agree, recorded and re-run side by side. Every
 * text from the tape is set as text.
 */
export class EvaluationsView {
  readonly element = h('div', { class: 'evaluations-view' });
  private items: EvaluationListItem[] = [];
  private shown: string | null = null;
  /** The report asked for last: the answer to an earlier pick is dropped. */
  private asked: Promise<{ report: EvaluationReport }> | null = null;
  private readonly reportSlot = h('div', { class: 'evaluation-slot', 'aria-live': 'polite' });

  constructor(
    private readonly channel: HostChannel,
    private readonly actions: RerunActions,
  ) {}

  /** The list; `prefer` (an evaluation that just finished) is opened, else the one shown, else the newest. */
  set(items: EvaluationListItem[], prefer?: string): void {
    this.items = items;
    const ids = items.map((i) => i.evalSessionId);
    const next = prefer !== undefined && ids.includes(prefer) ? prefer : this.shown !== null && ids.includes(this.shown) ? this.shown : (ids[0] ?? null);
    this.render();
    this.open(next);
  }

  private render(): void {
    const evaluate = this.actions.enabled ? h('vscode-button', { class: 'evaluate', secondary: true }, 'Evaluate with a model…') : null;
    evaluate?.addEventListener('click', () => this.actions.evaluate());
    const list =
      this.items.length === 0
        ? h(
            'p',
            { class: 'muted' },
            'No evaluations of this session yet. An evaluation re-runs every recorded request against a model and compares the answers.',
          )
        : h(
            'ul',
            { class: 'evaluation-list', 'aria-label': 'Evaluations' },
            ...this.items.map((e) => {
              const button = h(
                'button',
                { type: 'button', class: 'link', 'aria-current': e.evalSessionId === this.shown ? 'true' : undefined, title: e.evalSessionId },
                `${e.model} · ${time(e.startedAt)}`,
              );
              button.addEventListener('click', () => this.open(e.evalSessionId));
              return h(
                'li',
                { 'data-eval': e.evalSessionId },
                button,
                ' ',
                h('span', { class: 'muted' }, `${counts(e.summary)}${e.complete ? '' : ' (unfinished)'}`),
              );
            }),
          );
    this.element.replaceChildren(h('div', { class: 'toolbar' }, evaluate), list, this.reportSlot);
  }

  private open(evalSessionId: string | null): void {
    this.shown = evalSessionId;
    for (const li of this.element.querySelectorAll('.evaluation-list li')) {
      const b = li.querySelector('button');
      if (li.getAttribute('data-eval') === evalSessionId) b?.setAttribute('aria-current', 'true');
      else b?.removeAttribute('aria-current');
    }
    if (evalSessionId === null) {
      this.asked = null;
      this.reportSlot.replaceChildren();
      return;
    }
    const asked = this.channel.request('evaluation', { evalSessionId });
    this.asked = asked;
    this.reportSlot.replaceChildren(h('p', { class: 'muted', 'aria-busy': 'true' }, 'Loading the report…'));
    asked.then(
      (r) => {
        if (asked === this.asked) this.reportSlot.replaceChildren(reportView(r.report));
      },
      (e: unknown) => this.channel.report(e),
    );
  }
}

function reportView(r: EvaluationReport): HTMLElement {
  const s = r.summary;
  const head = h(
    'p',
    { class: 'evaluation-summary' },
    `Against ${r.model}${r.complete ? '' : ' (unfinished, so far)'}: ${counts(s)}. ` +
      `Tokens ${signed(s.tokenDelta.input)} in, ${signed(s.tokenDelta.output)} out; latency ${signed(s.latencyDeltaMs)} ms (re-run minus recorded).` +
      (s.stopped === null ? '' : ` Stopped early: ${s.stopped}.`),
  );
  const variation = r.variation === '{}' ? null : h('p', { class: 'muted' }, 'Variation: ', h('code', {}, r.variation));
  const table = h(
    'table',
    { class: 'data', id: TABLE_ID },
    h('caption', {}, 'Requests re-run and compared with the recording'),
    h(
      'thead',
      {},
      h('tr', {}, ...['Request', 'Status', 'Why', 'Similarity', 'Tokens (recorded → re-run)', 'Latency'].map((c) => h('th', { scope: 'col' }, c))),
    ),
    h(
      'tbody',
      {},
      ...r.rows.map((row) =>
        h(
          'tr',
          { 'data-entry-id': row.entryId, class: `status-${row.status}` },
          h('th', { scope: 'row' }, `#${row.entryId} (${row.turnId} · ${row.requestSeq})`),
          h('td', {}, badge(row.status, `status-${row.status}`)),
          h('td', {}, row.reason ?? ''),
          h('td', { class: 'n' }, row.textSimilarity === null ? '—' : row.textSimilarity.toFixed(2)),
          h('td', { class: 'n' }, `${tokensText(row.recordedTokens)} → ${tokensText(row.rerunTokens)}`),
          h('td', { class: 'n' }, `${latencyText(row.recordedLatencyMs)} → ${latencyText(row.rerunLatencyMs)}`),
        ),
      ),
    ),
  );
  const d = r.firstDivergence;
  const divergence =
    d === null
      ? h('p', { class: 'muted first-divergence' }, 'Every request evaluated agrees with the recording.')
      : h(
          'section',
          { class: 'first-divergence', 'aria-label': `First divergence, request #${d.entryId}` },
          h('h3', {}, `First divergence: request #${d.entryId} (${d.status})`),
          h('p', {}, d.reason),
          h(
            'div',
            { class: 'side-by-side' },
            side('Recorded', d.recorded),
            d.rerun === null ? h('div', { class: 'side muted' }, 'The re-run failed: no answer.') : side('Re-run', d.rerun),
          ),
        );
  return h(
    'section',
    { class: 'evaluation-report', 'aria-label': `Evaluation ${r.evalId}` },
    head,
    variation,
    evaluationPlot(r.rows, TABLE_ID),
    h('div', { class: 'table-scroll' }, table),
    divergence,
  );
}

function side(title: string, s: ResponseSide): HTMLElement {
  return h(
    'div',
    { class: 'side', 'data-side': title.toLowerCase() },
    h('h4', {}, title),
    h(
      'p',
      { class: 'muted' },
      `${s.finish === null ? 'no answer' : s.finish === 'tool_calls' ? 'tool calls' : 'text'} · ${tokensText(s.tokens)} · ${latencyText(s.latencyMs)}`,
    ),
    s.text === '' ? h('p', { class: 'muted' }, 'No text.') : h('pre', { class: 'answer-text' }, s.text),
    s.toolCalls.length === 0 ? null : h('ul', { class: 'tool-calls' }, ...s.toolCalls.map((c) => h('li', {}, h('code', {}, c)))),
  );
}
