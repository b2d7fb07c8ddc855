import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { OpenTape } from '../../agent/session/openTape';
import type { InspectorSource } from '../../inspector/inspectorController';
import type { Disposable } from '../../store/appendEvents';
import { TapeFileTooLargeError } from '../../store/errors';
import { watchFile } from '../../store/fileWatch';
import { formatOf, openTapeFile } from '../../store/tapeFile';
import type { TapeStore } from '../../store/tapeStore';
import { errorMessage } from '../../tape/errorMessage';
import { hostInspector, loadInspectorPage, postToInspector, showInspectorFailure, type InspectorWebviewDeps } from './inspectorWebview';
import { followReplayCursor } from './replayFollow';

/** The custom editor of `*.tape.sqlite` and `*.tape.jsonl` files (package.json `customEditors`). */
export const TAPE_EDITOR = 'agentTape.tapeFile';

/**
 * The largest `.tape.jsonl` the editor opens. A JSONL tape becomes a database in the extension
 * host's memory, which every extension shares: 2.5 to 4 times the file's size in RSS
 * (bench/jsonlMemory), so 128 MiB costs up to half a gigabyte. A larger one is better imported into
 * the workspace tape, whose file is read as it is instead of rebuilt with its search index.
 */
const EDITOR_JSONL_MAX_BYTES = 128 << 20;
const IMPORT = 'Import Tape File';

/** A problem with the file, worded so that it names the file (the store's own errors already do). */
function problemWith(file: string, e: unknown): string {
  const message = errorMessage(e);
  return message.includes(file) ? message : `${file}: ${message}`;
}

const versionOf = (file: string): string => {
  const s = fs.statSync(file, { throwIfNoEntry: false });
  return s ? `${s.ino}:${s.size}:${s.mtimeMs}` : 'missing';
};

/** What an editor's inspector reads: the file's store, through its open tape's reader, read-only. */
const sourceOf = (store: TapeStore, file: string): InspectorSource => ({
  store,
  reader: new OpenTape(store).reader,
  label: path.basename(file),
  readOnly: true,
});

/**
 * One tape file, open read-only: a read-only open takes no lock and never writes, so whatever the
 * file is (a live tape the CLI appends to, a damaged copy) its bytes stay as they are. A
 * `.tape.sqlite` follows its writer; a `.tape.jsonl` lives in memory, so it is read again when the
 * file changes and the editors move to the new store.
 */
class TapeFileDocument implements vscode.CustomDocument {
  private readonly reloaded = new vscode.EventEmitter<InspectorSource | { error: string }>();
  /** A new store after the file changed, or why it could not be read this time. */
  readonly onDidReload = this.reloaded.event;
  private watch: Disposable | undefined;

  private constructor(
    readonly uri: vscode.Uri,
    private store: TapeStore | undefined,
    /** Why the file could not be opened; the editor shows it instead of the inspector. */
    readonly error: string | undefined,
    log: vscode.LogOutputChannel,
  ) {
    const file = uri.fsPath;
    if (store === undefined) return;
    if (formatOf(file) === 'sqlite') {
      this.watch = store.follow((e) => log.error(`following ${file} failed: ${errorMessage(e)}`));
      return;
    }
    // fileWatch also polls; only a real change of the file reads it again.
    let version = versionOf(file);
    this.watch = watchFile(file, () => {
      const now = versionOf(file);
      if (now === version) return;
      version = now;
      void this.reload(log);
    });
  }

  static async open(uri: vscode.Uri, log: vscode.LogOutputChannel): Promise<TapeFileDocument> {
    const file = uri.fsPath;
    try {
      if (uri.scheme !== 'file') throw new Error(`only tape files on this machine can be opened, not ${uri.toString()}`);
      const store = await openTapeFile(file, { readOnly: true, jsonlMaxBytes: EDITOR_JSONL_MAX_BYTES });
      log.info(`tape file ${file} opened read-only`);
      return new TapeFileDocument(uri, store, undefined, log);
    } catch (e) {
      const error = problemWith(file, e);
      log.error(`could not open the tape file: ${error}`);
      if (!(e instanceof TapeFileTooLargeError && formatOf(file) === 'jsonl')) return new TapeFileDocument(uri, undefined, error, log);
      const offer = `${error}. Its sessions can be imported into the workspace tape instead (Tape: Import Tape File).`;
      void vscode.window
        .showErrorMessage(`Agent Tape: ${offer}`, IMPORT)
        .then((choice) => choice === IMPORT && vscode.commands.executeCommand('agentTape.importTapeFile', uri));
      return new TapeFileDocument(uri, undefined, offer, log);
    }
  }

  get source(): InspectorSource | undefined {
    return this.store && sourceOf(this.store, this.uri.fsPath);
  }

  private async reload(log: vscode.LogOutputChannel): Promise<void> {
    const file = this.uri.fsPath;
    let next: TapeStore;
    try {
      next = await openTapeFile(file, { readOnly: true, jsonlMaxBytes: EDITOR_JSONL_MAX_BYTES });
    } catch (e) {
      const error = problemWith(file, e);
      log.warn(`tape file changed but could not be read again (still showing what was read before): ${error}`);
      this.reloaded.fire({ error: `${error}. Still showing what was read before.` });
      return;
    }
    const previous = this.store;
    // Closed while the file was being read again: nobody will show the new store.
    if (previous === undefined) return void (await next.close());
    this.store = next;
    this.reloaded.fire(sourceOf(next, file));
    await previous.close();
  }

  dispose(): void {
    this.watch?.dispose();
    this.reloaded.dispose();
    void this.store?.close();
    this.store = undefined;
  }
}

/** Opening a tape file from the explorer shows the inspector on it, never writing the file; it follows a replay of that file. */
export class TapeEditorProvider implements vscode.CustomReadonlyEditorProvider<TapeFileDocument> {
  constructor(private readonly deps: InspectorWebviewDeps) {}

  openCustomDocument(uri: vscode.Uri): Promise<TapeFileDocument> {
    return TapeFileDocument.open(uri, this.deps.log);
  }

  resolveCustomEditor(document: TapeFileDocument, panel: vscode.WebviewPanel): void {
    const title = path.basename(document.uri.fsPath);
    loadInspectorPage(panel.webview, this.deps.context, title);
    const source = document.source;
    if (source === undefined) {
      const failure = showInspectorFailure(panel.webview, document.error ?? `${document.uri.fsPath}: could not be opened`);
      panel.onDidDispose(() => failure.dispose());
      return;
    }
    const hosted = hostInspector(panel.webview, source, this.deps, { tapeFile: document.uri.fsPath });
    const reloads = document.onDidReload((r) => {
      if ('error' in r) postToInspector(panel.webview, { type: 'error', message: r.error });
      else hosted.controller.setSource(r);
    });
    const cursor = followReplayCursor(
      () => document.uri.fsPath,
      () => [hosted.controller],
    );
    panel.onDidDispose(() => {
      cursor.dispose();
      reloads.dispose();
      hosted.dispose();
    });
  }
}
