import { hostToWebview, type HostToWebview } from '../src/protocol/messages';
import { host } from './vscodeApi';

const app = document.getElementById('app') as HTMLElement;

/** Every string from the host lands through textContent: never parsed as HTML. */
function el(tag: string, text?: string, className?: string): HTMLElement {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function render(msg: HostToWebview): void {
  app.replaceChildren();
  if (msg.type === 'error') {
    app.append(el('p', msg.message, 'error'));
    return;
  }
  app.append(el('h1', 'Agent Tape'));
  const dl = el('dl');
  for (const [k, v] of [['Extension', msg.extension], ['SQLite (sql.js)', msg.sqlite], ['VS Code', msg.vscode]]) dl.append(el('dt', k), el('dd', v));
  const again = el('button', 'Show Version') as HTMLButtonElement;
  again.addEventListener('click', () => host.postMessage({ type: 'runCommand', command: 'agentTape.showVersion' }));
  app.append(dl, again);
}

window.addEventListener('message', (event: MessageEvent) => {
  const parsed = hostToWebview.safeParse(event.data);
  if (parsed.success) render(parsed.data);
  else render({ type: 'error', message: `Unexpected message from the extension: ${parsed.error.issues[0]?.message ?? 'invalid'}` });
});
app.append(el('p', 'Loading…'));
host.postMessage({ type: 'ready' });
