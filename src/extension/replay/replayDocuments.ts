import * as path from 'path';
import * as vscode from 'vscode';
import { readerOf } from '../../store/lineage';
import type { TapeStore } from '../../store/tapeStore';
import { entryLines } from '../../replay/entryLines';
import { parseReplayDocumentPath } from '../../replay/replayDocument';
import { openReplayTape } from '../../replay/replayTape';

/**
 * The replay documents (`agent-tape-replay:` URIs): a session's entries, one per line, so the
 * debugger's current line is the cursor's entry and a line breakpoint is an entry id. Read-only, as
 * every content provider's document is. A document of a running replay is read from that replay's
 * store; any other (one restored after a reload) from the tape file, opened read-only for it.
 */
export class ReplayDocuments implements vscode.TextDocumentContentProvider {
  private readonly stores = new Map<string, TapeStore>();

  /** While a replay runs, its documents read its store; returns what stops that. */
  serve(file: string, store: TapeStore): vscode.Disposable {
    const key = path.resolve(file);
    this.stores.set(key, store);
    return new vscode.Disposable(() => {
      if (this.stores.get(key) === store) this.stores.delete(key);
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const doc = parseReplayDocumentPath(uri.toString());
    if (doc === null) throw new Error(`${uri.toString()} is not a replay document`);
    const running = this.stores.get(path.resolve(doc.tapeFile));
    if (running !== undefined) return entryLines(readerOf(running).entries(doc.sessionId));
    const tape = await openReplayTape(doc.tapeFile);
    try {
      return entryLines(readerOf(tape.store).entries(doc.sessionId));
    } finally {
      await tape.release();
    }
  }
}
