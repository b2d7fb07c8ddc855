import * as path from 'path';
import * as vscode from 'vscode';
import { OpenTape } from '../../agent/session/openTape';
import { entryLines } from '../../replay/entryLines';
import { parseReplayDocumentPath } from '../../replay/replayDocument';
import { openReplayTape } from '../../replay/replayTape';

/**
 * The replay documents (`agent-tape-replay:` URIs): a session's entries, one per line, so the
 * debugger's current line is the cursor's entry and a line breakpoint is an entry id. Read-only, as
 * every content provider's document is. A document of a running replay is read from that replay's
 * open tape; any other (one restored after a reload) from the tape file, opened read-only for it.
 */
export class ReplayDocuments implements vscode.TextDocumentContentProvider {
  private readonly tapes = new Map<string, OpenTape>();

  /** While a replay runs, its documents read its open tape; returns what stops that. */
  serve(file: string, tape: OpenTape): vscode.Disposable {
    const key = path.resolve(file);
    this.tapes.set(key, tape);
    return new vscode.Disposable(() => {
      if (this.tapes.get(key) === tape) this.tapes.delete(key);
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const doc = parseReplayDocumentPath(uri.toString());
    if (doc === null) throw new Error(`${uri.toString()} is not a replay document`);
    const running = this.tapes.get(path.resolve(doc.tapeFile));
    if (running !== undefined) return entryLines(running.session(doc.sessionId).entries());
    const tape = await openReplayTape(doc.tapeFile);
    try {
      return entryLines(new OpenTape(tape.store).session(doc.sessionId).entries());
    } finally {
      await tape.release();
    }
  }
}
