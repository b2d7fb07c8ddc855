import type { HostToInspector } from '../../src/protocol/inspector';
import { badge, h, num } from './dom';

type Source = Extract<HostToInspector, { type: 'source' }>;

/**
 * A fork or subagent is told from its parent in the picker: a fork's title is its parent's until it
 * is asked something new. The ids are the ones src/tape/fork.ts makes.
 */
function branchOf(sessionId: string): string {
  const m = /::(fork|subagent)::([^:]+)$/.exec(sessionId);
  return m === null ? '' : ` · ${m[1]} ${m[2]}`;
}

/** What is open: the tape's label, whether it is read-only, the session picker, and Replay for the session shown. */
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

  constructor(onSession: (sessionId: string) => void, onReplay: (sessionId: string) => void) {
    this.readOnly.hidden = true;
    this.select.addEventListener('change', () => onSession(this.select.value));
    this.replay.addEventListener('click', () => {
      if (this.select.value) onReplay(this.select.value);
    });
    this.element = h(
      'header',
      { class: 'inspector-header' },
      this.label,
      this.readOnly,
      h('label', { for: 'session-picker', class: 'session-label' }, 'Session'),
      this.select,
      this.replay,
    );
  }

  update(s: Source): void {
    this.label.textContent = s.label;
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
  }
}
