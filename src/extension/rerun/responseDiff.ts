import * as vscode from 'vscode';

/** Re-run documents are virtual: read-only, and gone with the window. */
const SCHEME = 'agent-tape-rerun';

/**
 * The recorded and the re-run response as two read-only virtual documents in VS Code's own diff
 * editor, recorded on the left. Each re-run gets its own pair of URIs, so an earlier diff stays as
 * it was.
 */
export class ResponseDiffs implements vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly registration = vscode.workspace.registerTextDocumentContentProvider(SCHEME, {
    provideTextDocumentContent: (uri) => this.texts.get(uri.toString()) ?? '',
  });
  private count = 0;

  async show(title: string, recorded: string, rerun: string): Promise<{ recorded: vscode.Uri; rerun: vscode.Uri }> {
    const n = ++this.count;
    const safe = title.replace(/[\\/:]/g, '_');
    const uri = (side: string) => vscode.Uri.from({ scheme: SCHEME, path: `/${n}/${safe} (${side}).md` });
    const left = uri('recorded');
    const right = uri('re-run');
    this.texts.set(left.toString(), recorded);
    this.texts.set(right.toString(), rerun);
    await vscode.commands.executeCommand('vscode.diff', left, right, `${title}: recorded ↔ re-run`, { preview: false });
    return { recorded: left, rerun: right };
  }

  dispose(): void {
    this.registration.dispose();
    this.texts.clear();
  }
}
