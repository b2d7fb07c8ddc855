import * as z from 'zod/mini';
import { aboutRequests, hostToWebview, type AboutInfo } from '../src/protocol/messages';
import { Messenger } from './messenger';
import { host } from './vscodeApi';
import { errorMessage } from '../src/tape/errorMessage';

const app = document.getElementById('app') as HTMLElement;

/** Every string from the host lands through textContent: never parsed as HTML. */
function el(tag: string, text?: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function showError(message: string): void {
  app.replaceChildren(el('p', message, 'error'));
}

function render(msg: AboutInfo): void {
  app.replaceChildren();
  app.append(el('h1', 'Agent Tape'));
  const dl = el('dl');
  for (const [k, v] of [
    ['Extension', msg.extension],
    ['SQLite (sql.js)', msg.sqlite],
    ['VS Code', msg.vscode],
  ])
    dl.append(el('dt', k), el('dd', v));
  const again = el('button', 'Show Version') as HTMLButtonElement;
  again.addEventListener('click', () => host.postMessage({ type: 'runCommand', command: 'agentTape.showVersion' }));
  app.append(dl, again);
}

const messenger = new Messenger(aboutRequests, (m) => host.postMessage(m));
window.addEventListener('message', (event: MessageEvent) => {
  const parsed = hostToWebview.safeParse(event.data);
  if (parsed.success) messenger.receive(parsed.data);
  else showError(`Unexpected message from the extension: ${z.prettifyError(parsed.error)}`);
});
app.append(el('p', 'Loading…'));
messenger.request('about', {}).then(render, (e: unknown) => showError(errorMessage(e)));
