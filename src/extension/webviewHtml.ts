/**
 * The HTML shell of every Agent Tape webview. Kept free of `vscode` imports so the browser suite
 * can load the very same page. The CSP allows only our nonce-tagged script and our stylesheet:
 * no inline handlers, no remote content, so text from a model or a tool can never run as code.
 */
export interface WebviewHtmlOptions {
  title: string;
  cspSource: string;
  nonce: string;
  scriptUri: string;
  styleUri: string;
  /**
   * The codicons stylesheet, for pages that show icons. `<vscode-icon>` finds the font through a
   * link with this exact id (a web component cannot see the page's @font-face otherwise).
   */
  codiconsUri?: string;
}

const escapeAttr = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export function renderWebviewHtml(o: WebviewHtmlOptions): string {
  const csp = [
    "default-src 'none'",
    `style-src ${o.cspSource}`,
    `font-src ${o.cspSource}`,
    `img-src ${o.cspSource} data:`,
    `script-src 'nonce-${o.nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(o.styleUri)}">
${o.codiconsUri === undefined ? '' : `<link id="vscode-codicon-stylesheet" rel="stylesheet" href="${escapeAttr(o.codiconsUri)}">\n`}<title>${escapeAttr(o.title)}</title>
</head>
<body>
<main id="app" aria-live="polite"></main>
<script nonce="${escapeAttr(o.nonce)}" src="${escapeAttr(o.scriptUri)}"></script>
</body>
</html>`;
}

export function makeNonce(): string {
  const bytes = new Uint8Array(18);
  globalThis.crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString('base64url');
}
