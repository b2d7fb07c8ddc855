import * as vscode from 'vscode';
import * as z from 'zod';
import { aboutRequests, webviewToHost, type HostToWebview } from '../protocol/messages';
import { RequestDispatcher } from '../protocol/requestDispatcher';
import { sqliteVersion } from '../store/sqljs';
import { makeNonce, renderWebviewHtml } from './webviewHtml';

let current: vscode.WebviewPanel | undefined;

/** A small webview that shows what the extension runs on; one panel, revealed if already open. */
export function showAboutPanel(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  if (current) {
    current.reveal();
    return;
  }
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
  const media = vscode.Uri.joinPath(context.extensionUri, 'media');
  const panel = vscode.window.createWebviewPanel('agentTape.about', 'About Agent Tape', vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [dist, media],
  });
  current = panel;
  const { webview } = panel;
  webview.html = renderWebviewHtml({
    title: 'About Agent Tape',
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'webview.css')).toString(),
  });
  const requests = new RequestDispatcher(
    aboutRequests,
    {
      about: async () => ({ extension: context.extension.packageJSON.version as string, sqlite: await sqliteVersion(), vscode: vscode.version }),
    },
    (m: HostToWebview) => void webview.postMessage(m),
  );
  panel.onDidDispose(() => (current = undefined), undefined, context.subscriptions);
  webview.onDidReceiveMessage(
    async (raw: unknown) => {
      const parsed = webviewToHost.safeParse(raw);
      if (!parsed.success) {
        log.warn(`ignored a malformed webview message: ${z.prettifyError(parsed.error)}`);
        return;
      }
      const msg = parsed.data;
      if (msg.type === 'runCommand') await vscode.commands.executeCommand(msg.command);
      else await requests.dispatch(msg);
    },
    undefined,
    context.subscriptions,
  );
}
