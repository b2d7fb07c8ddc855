import * as vscode from 'vscode';
import { errorMessage } from '../../tape/errorMessage';
import type { WorkspaceTape } from '../workspaceTape';
import { blameActions } from './blameActions';
import { BlameDecorations, blameStyleSetting } from './blameDecorations';
import { blameHoverMarkdown } from './blameHover';
import { agentLineCount, rangeAtLine } from './blameMarks';
import type { DocumentBlame, DocumentBlames } from './documentBlames';

/** Typing comes in bursts: blame again once it pauses. */
const TYPING_MS = 300;
/** A chat turn appends to the tape many times a second, mostly text that changes no file: blame again at most once a second. */
const TAPE_MS = 1000;
/** The tape's timer among the documents' (keyed by URI). */
const TAPE = '';

interface Cached {
  version: number;
  result: Promise<DocumentBlame | undefined>;
  abort: AbortController;
}

/**
 * Agent blame while it is on: the hover, the marks in the visible editors and the active file's
 * count of agent lines, each document's blame kept for its version. It follows the documents
 * (their unsaved text, debounced), the tape (appends, debounced) and the editors shown; disposing
 * it removes every provider, listener and mark, so blame that is off costs nothing.
 */
export class LiveBlame implements vscode.Disposable {
  private readonly cache = new Map<string, Cached>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();
  private readonly listeners: { dispose(): unknown }[] = [];
  private decorations: BlameDecorations;
  private disposed = false;

  constructor(
    private readonly blames: DocumentBlames,
    tape: WorkspaceTape,
    private readonly log: vscode.LogOutputChannel,
    /** The active file's agent lines; undefined when the active editor shows no workspace file blame knows. */
    private readonly onCount: (lines: number | undefined) => void,
  ) {
    this.decorations = new BlameDecorations(blameStyleSetting(log));
    this.listeners.push(
      vscode.languages.registerHoverProvider({ scheme: 'file' }, { provideHover: (d, p, t) => this.hover(d, p, t) }),
      vscode.window.onDidChangeVisibleTextEditors(() => this.showAll()),
      vscode.window.onDidChangeActiveTextEditor(() => void this.showCount()),
      vscode.workspace.onDidChangeTextDocument((e) => {
        // Output channels and other editors' documents change all the time: only files are blamed.
        if (e.contentChanges.length > 0 && e.document.uri.scheme === 'file')
          this.later(e.document.uri.toString(), TYPING_MS, () => this.showDocument(e.document));
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri.toString())),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!e.affectsConfiguration('agentTape.blame.style')) return;
        for (const editor of vscode.window.visibleTextEditors) this.decorations.clear(editor);
        this.decorations.dispose();
        this.decorations = new BlameDecorations(blameStyleSetting(log));
        this.showAll();
      }),
    );
    tape.open().then(
      (ws) => {
        // Not postponed by the next append, as typing is: a turn streaming for a minute would otherwise show its edits only at its end.
        if (!this.disposed) this.listeners.push(ws.onDidAppend(() => this.timers.has(TAPE) || this.later(TAPE, TAPE_MS, () => this.tapeGrew())));
      },
      // The blame of each document says why the tape did not open.
      () => undefined,
    );
    this.showAll();
  }

  /** The document's blame for its current version, computed once per version. */
  of(document: vscode.TextDocument): Promise<DocumentBlame | undefined> {
    const key = document.uri.toString();
    const cached = this.cache.get(key);
    if (cached?.version === document.version) return cached.result;
    cached?.abort.abort();
    const abort = new AbortController();
    const result = this.blames.blame(document, abort.signal).catch((e: unknown) => {
      if (!abort.signal.aborted) this.log.warn(`agent blame of ${document.uri.fsPath}: ${errorMessage(e)}`);
      return undefined;
    });
    this.cache.set(key, { version: document.version, result, abort });
    return result;
  }

  private async hover(document: vscode.TextDocument, position: vscode.Position, token: vscode.CancellationToken): Promise<vscode.Hover | undefined> {
    const blame = await this.of(document);
    if (blame === undefined || token.isCancellationRequested || blame.version !== document.version) return undefined;
    const origin = rangeAtLine(blame.ranges, position.line)?.origin;
    if (origin == null) return undefined;
    const actions = blameActions(origin, blame.actions);
    const markdown = new vscode.MarkdownString(blameHoverMarkdown(origin, actions, Date.now()));
    // Only our links may run, and only these commands: the tape's text is in code spans.
    markdown.isTrusted = { enabledCommands: [...new Set(actions.map((a) => a.command))] };
    return new vscode.Hover(markdown, document.lineAt(position.line).range);
  }

  private showAll(): void {
    for (const editor of vscode.window.visibleTextEditors) void this.showEditor(editor);
    void this.showCount();
  }

  private showDocument(document: vscode.TextDocument): void {
    for (const editor of vscode.window.visibleTextEditors) if (editor.document === document) void this.showEditor(editor);
    if (vscode.window.activeTextEditor?.document === document) void this.showCount();
  }

  private async showEditor(editor: vscode.TextEditor): Promise<void> {
    const document = editor.document;
    const blame = await this.of(document);
    // A document changed meanwhile is shown again once the change's own blame is ready.
    if (this.disposed || document.version !== blame?.version) {
      if (!this.disposed && blame === undefined) this.decorations.clear(editor);
      return;
    }
    this.decorations.show(editor, blame.ranges);
  }

  private async showCount(): Promise<void> {
    const document = vscode.window.activeTextEditor?.document;
    if (document === undefined) return this.onCount(undefined);
    const blame = await this.of(document);
    if (this.disposed || vscode.window.activeTextEditor?.document !== document) return;
    this.onCount(blame === undefined ? undefined : agentLineCount(blame.ranges));
  }

  /** The tape grew: every blame may have changed. */
  private tapeGrew(): void {
    for (const c of this.cache.values()) c.abort.abort();
    this.cache.clear();
    this.showAll();
  }

  private later(key: string, ms: number, run: () => void): void {
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        if (!this.disposed) run();
      }, ms),
    );
  }

  private forget(key: string): void {
    this.cache.get(key)?.abort.abort();
    this.cache.delete(key);
  }

  dispose(): void {
    this.disposed = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    for (const c of this.cache.values()) c.abort.abort();
    this.cache.clear();
    for (const l of this.listeners) l.dispose();
    this.listeners.length = 0;
    // Disposing a decoration type takes its marks off every editor.
    this.decorations.dispose();
  }
}
