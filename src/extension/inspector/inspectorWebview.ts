import * as vscode from 'vscode';
import { InspectorController, type InspectorHost, type InspectorSource } from '../../inspector/inspectorController';
import { inspectorToHost, type HostToInspector } from '../../protocol/inspector';
import { errorMessage } from '../../tape/errorMessage';
import { makeNonce, renderWebviewHtml } from '../webviewHtml';
import { runInspectorCommand } from './inspectorCommands';

export interface InspectorWebviewDeps {
  context: vscode.ExtensionContext;
  log: vscode.LogOutputChannel;
}

/**
 * Loads the inspector page into a webview: scripts on, and nothing readable but the bundle and
 * the stylesheet (dist/ and media/), so the page can never load a file of the workspace.
 */
export function loadInspectorPage(webview: vscode.Webview, context: vscode.ExtensionContext, title: string): void {
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
  const media = vscode.Uri.joinPath(context.extensionUri, 'media');
  webview.options = { enableScripts: true, localResourceRoots: [dist, media] };
  webview.html = renderWebviewHtml({
    title,
    cspSource: webview.cspSource,
    nonce: makeNonce(),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'inspector.js')).toString(),
    styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'inspector.css')).toString(),
    codiconsUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'codicon.css')).toString(),
  });
}

/** Every message to the page goes through here, so it is checked against the protocol's type. */
export function postToInspector(webview: vscode.Webview, m: HostToInspector): void {
  void webview.postMessage(m);
}

/**
 * A page with nothing to inspect: it says why (naming the file and the problem) once it is ready,
 * and again if it reloads.
 */
export function showInspectorFailure(webview: vscode.Webview, message: string): vscode.Disposable {
  return webview.onDidReceiveMessage((raw: unknown) => {
    if (inspectorToHost.safeParse(raw).data?.type === 'ready') postToInspector(webview, { type: 'failed', message });
  });
}

export interface HostedInspector extends vscode.Disposable {
  readonly controller: InspectorController;
}

/**
 * An InspectorController behind a webview: the controller's messages go to the page, the page's
 * to the controller (which parses them), copies to the clipboard, links to `openExternal` (http,
 * https and mailto only: the controller checks), and commands through the whitelist. `onSource`
 * sees each `source` message, so a panel can title itself after the session. `amend` (a panel on
 * the workspace tape) lets the page amend compactions; without it the page's amendments are
 * refused.
 */
export function hostInspector(
  webview: vscode.Webview,
  source: InspectorSource,
  deps: InspectorWebviewDeps,
  options: {
    sessionId?: string;
    tapeFile?: string;
    onSource?: (m: Extract<HostToInspector, { type: 'source' }>) => void;
    amend?: InspectorHost['amend'];
  } = {},
): HostedInspector {
  const { log } = deps;
  const controller = new InspectorController(
    source,
    {
      post: (m) => {
        if (m.type === 'source') options.onSource?.(m);
        postToInspector(webview, m);
      },
      copy: (text) => void vscode.env.clipboard.writeText(text),
      command: (name, args) => {
        runInspectorCommand(name, args, { tapeFile: options.tapeFile }).catch((e: unknown) => {
          log.error(`inspector command ${name} failed: ${errorMessage(e)}`);
          void vscode.window.showErrorMessage(`Agent Tape: ${errorMessage(e)}`);
        });
      },
      openExternal: async (url) => await vscode.env.openExternal(vscode.Uri.parse(url, true)),
      ...(options.amend === undefined ? {} : { amend: options.amend }),
    },
    options.sessionId === undefined ? {} : { sessionId: options.sessionId },
  );
  const received = webview.onDidReceiveMessage((raw: unknown) =>
    controller.handle(raw).catch((e: unknown) => log.error(`inspector: handling a message from the page failed: ${errorMessage(e)}`)),
  );
  return {
    controller,
    dispose: () => {
      received.dispose();
      controller.dispose();
    },
  };
}
