import { h } from './dom';

/** A dismissible error line above the views: the views stay usable behind it. */
export class ErrorBanner {
  private readonly text = h('span', { class: 'banner-text' });
  readonly element: HTMLElement;

  constructor() {
    const dismiss = h('vscode-button', { secondary: true, icon: 'close', 'aria-label': 'Dismiss error' }, 'Dismiss');
    dismiss.addEventListener('click', () => (this.element.hidden = true));
    this.element = h(
      'div',
      { class: 'banner', role: 'alert', hidden: true },
      h('span', { class: 'codicon codicon-error', 'aria-hidden': 'true' }),
      this.text,
      dismiss,
    );
  }

  show(message: string): void {
    this.text.textContent = message;
    this.element.hidden = false;
  }
}
