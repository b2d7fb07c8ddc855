import type { HostToInspector } from '../../src/protocol/inspector';
import { sameUsage, usageDetail, usageLine } from '../../src/tape/usage/usageFigures';
import { badge, h, num, textOf } from './dom';

type Source = Extract<HostToInspector, { type: 'source' }>;
type Usage = Extract<HostToInspector, { type: 'usage' }>;

/**
 * A fork or subagent is told from its parent in the picker: a fork's title is its parent's until it
 * is asked something new. The ids are the ones src/tape/fork.ts makes.
 */
function branchOf(sessionId: string): string {
  const m = /::(fork|subagent)::([^:]+)$/.exec(sessionId);
  return m === null ? '' : ` · ${m[1]} ${m[2]}`;
}

/**
 * What is open: the tape's label, whether it is read-only, the session picker, Replay and Export
 * as OpenTelemetry for the session shown, and its requests and tokens, with its subagents and
 * forks where they add any.
 */
export class Header {
  readonly element: HTMLElement;
  private readonly label = h('h1', { class: 'source-label' }, 'Tape Inspector');
  private readonly readOnly = badge('read-only', 'marker-read-only');
  private readonly select = h('vscode-single-select', { id: 'session-picker', 'aria-label': 'Session' }) as HTMLElement & { value: string };
  // A replay only reads, so it is offered on read-only tapes too.
  private readonly replay = h(
    'vscode-button',
    { secondary: true, icon: 'debug-alt', disabled: true, title: 'Step through this session in the debugger (Tape: Replay Session)' },
    'Replay',
  );
  // An export only reads the tape, so it is offered on read-only tapes too.
  private readonly exportOtlp = h(
    'vscode-button',
    {
      secondary: true,
      class: 'export-otlp',
      disabled: true,
      title: 'Save this session as OpenTelemetry spans, an OTLP/JSON file (Tape: Export Session as OpenTelemetry)',
    },
    'Export as OpenTelemetry…',
  );
  private readonly usage = h('p', { class: 'session-usage', hidden: true });
  private sessionId: string | null = null;

  constructor(onSession: (sessionId: string) => void, onReplay: (sessionId: string) => void, onExportOtlp: (sessionId: string) => void) {
    this.readOnly.hidden = true;
    this.select.addEventListener('change', () => onSession(this.select.value));
    this.replay.addEventListener('click', () => {
      if (this.select.value) onReplay(this.select.value);
    });
    this.exportOtlp.addEventListener('click', () => {
      if (this.select.value) onExportOtlp(this.select.value);
    });
    this.element = h(
      'header',
      { class: 'inspector-header' },
      this.label,
      this.readOnly,
      h('label', { for: 'session-picker', class: 'session-label' }, 'Session'),
      this.select,
      this.replay,
      this.exportOtlp,
      this.usage,
    );
  }

  update(s: Source): void {
    this.label.replaceChildren(textOf(s.label));
    this.readOnly.hidden = !s.readOnly;
    this.select.replaceChildren(
      ...s.sessions.map((x) =>
        h(
          'vscode-option',
          { value: x.sessionId, selected: x.sessionId === s.sessionId },
          `${x.title ?? x.sessionId}${branchOf(x.sessionId)} (${num(x.entryCount)} entries)`,
        ),
      ),
    );
    if (s.sessionId !== null) this.select.value = s.sessionId;
    this.replay.toggleAttribute('disabled', s.sessionId === null);
    this.exportOtlp.toggleAttribute('disabled', s.sessionId === null);
    // Another session's figures are not this one's: hidden until its own come.
    if (s.sessionId !== this.sessionId) this.usage.hidden = true;
    this.sessionId = s.sessionId;
  }

  /** "2 requests · 1.6k in · 80 out · with subagents and forks: 5 requests · …"; the exact figures in its title. */
  showUsage(u: Usage): void {
    if (u.sessionId !== this.sessionId) return;
    const both = !sameUsage(u.own, u.rolledUp);
    this.usage.textContent = both ? `${usageLine(u.own)}; with subagents and forks: ${usageLine(u.rolledUp)}` : usageLine(u.own);
    this.usage.title = both
      ? `This session: ${usageDetail(u.own)}\nWith its ${num(u.descendants)} ${u.descendants === 1 ? 'subagent or fork' : 'subagents and forks'}: ${usageDetail(u.rolledUp)}`
      : usageDetail(u.own);
    this.usage.hidden = false;
  }
}
