import type { HostToInspector } from '../../src/protocol/inspector';
import { badge, h, num } from './dom';

type Source = Extract<HostToInspector, { type: 'source' }>;

/** What is open: the tape's label, whether it is read-only, and the session picker. */
export class Header {
  readonly element: HTMLElement;
  private readonly label = h('h1', { class: 'source-label' }, 'Tape Inspector');
  private readonly readOnly = badge('read-only', 'marker-read-only');
  private readonly select = h('vscode-single-select', { id: 'session-picker', 'aria-label': 'Session' }) as HTMLElement & { value: string };

  constructor(onSession: (sessionId: string) => void) {
    this.readOnly.hidden = true;
    this.select.addEventListener('change', () => onSession(this.select.value));
    this.element = h('header', { class: 'inspector-header' }, this.label, this.readOnly,
      h('label', { for: 'session-picker', class: 'session-label' }, 'Session'), this.select);
  }

  update(s: Source): void {
    this.label.textContent = s.label;
    this.readOnly.hidden = !s.readOnly;
    this.select.replaceChildren(...s.sessions.map((x) =>
      h('vscode-option', { value: x.sessionId, selected: x.sessionId === s.sessionId }, `${x.title ?? x.sessionId} (${num(x.entryCount)} entries)`)));
    if (s.sessionId !== null) this.select.value = s.sessionId;
  }
}
