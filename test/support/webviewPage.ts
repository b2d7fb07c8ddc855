import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { renderWebviewHtml } from '../../src/extension/webviewHtml';

/**
 * A real webview page on disk (the same HTML shell, CSP and bundle VS Code shows), for a browser
 * to open from `file:`: the page tests and the inspector benchmark load it with a stand-in host.
 * Returns the page's file URL.
 */
export function webviewPageUrl(root: string, page: { title: string; script: string; style: string; codicons?: boolean; nonce: string }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-webview-'));
  const file = path.join(dir, 'index.html');
  const url = (rel: string) => pathToFileURL(path.join(root, rel)).href;
  fs.writeFileSync(
    file,
    renderWebviewHtml({
      title: page.title,
      cspSource: 'file:',
      nonce: page.nonce,
      scriptUri: url(page.script),
      styleUri: url(page.style),
      ...(page.codicons ? { codiconsUri: url('dist/codicon.css') } : {}),
    }),
  );
  return pathToFileURL(file).href;
}
