import * as vscode from 'vscode';
import { describeInput } from '../../agent/tools/describeInput';
import type { CompactionNotice, SessionEvent } from '../../agent/turnEvent';
import type { SubagentOutcome } from '../../tape/fork';
import { oneLine } from '../../tape/oneLine';
import { codeSpan } from '../tools/markdownCode';
import { compactionSentence } from './compactionSentence';

const PROGRESS_MAX = 120;

/** Tools whose input names a workspace file the user may want to open from the answer. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['read_file', 'apply_edit']);

export interface RendererOptions {
  /** The folder the tools' relative paths start from. */
  root: vscode.Uri;
  /** The tape session the turn is in, for the buttons that act on its checkpoints. */
  sessionId: string;
  /** Tools VS Code itself shows in the chat (those that run through `vscode.lm.invokeTool`). */
  shownByEditor: (toolName: string) => boolean;
}

/**
 * Turns the agent's events into a chat response as they come: answer text streamed as markdown,
 * a progress line per tool call, the files read and edited as references, and compactions and
 * handoffs as short notices (a turn's compactions after its answer). Only the answer itself is the model's Markdown; any other text of the
 * model, a tool or the tape is put in code spans (markdownCode.ts), and the chat renders no HTML.
 */
export class ChatRenderer {
  private messageId: string | undefined;
  private readonly inputs = new Map<string, unknown>();
  private readonly referenced = new Set<string>();
  /** The turn's automatic compactions, shown once its answer is in. */
  private readonly compactions: CompactionNotice[] = [];

  constructor(
    private readonly stream: vscode.ChatResponseStream,
    private readonly options: RendererOptions,
  ) {}

  readonly onEvent = (event: SessionEvent): void => {
    switch (event.type) {
      case 'text':
        // The answer after a tool round starts a paragraph of its own.
        if (this.messageId !== undefined && event.messageId !== this.messageId) this.stream.markdown('\n\n');
        this.messageId = event.messageId;
        if (event.delta !== '') this.stream.markdown(event.delta);
        break;
      case 'tool_call':
        this.inputs.set(event.toolCallId, event.input);
        // Progress is Markdown too, and the input is the model's.
        if (!this.options.shownByEditor(event.name)) this.stream.progress(`${event.name} ${codeSpan(oneLine(describeInput(event.input), PROGRESS_MAX))}`);
        break;
      case 'tool_result':
        if (event.status === 'ok') this.afterTool(event.name, this.inputs.get(event.toolCallId));
        break;
      case 'subagent':
        this.subagent(event.childSessionId, event.line, event.outcome);
        break;
      case 'compaction':
        // VS Code folds what comes before the answer into the reply's collapsed "Completed N steps":
        // a step line now, and the notice with its button after the answer, where it stays in sight.
        this.stream.progress(`Compacted the history into ${codeSpan(event.anchorName)}`);
        this.compactions.push(event);
        break;
      case 'error':
        if (event.kind === 'compaction')
          notice(this.stream, 'warning', `Automatic compaction failed (${codeSpan(event.message)}); older messages are left out of this request instead.`);
        break;
      case 'checkpoint':
        // The turn_end checkpoint comes after the answer, just before turn/end: the reply ends with it.
        if (event.reason !== 'turn_end') break;
        this.showCompactions();
        if (event.files > 0) this.turnChanges(event.turnId, event.files, event.added, event.removed);
        break;
      case 'checkpoints_off':
        notice(
          this.stream,
          'warning',
          `File checkpoints are off for this session, so its changes cannot be undone or restored from the tape: ${codeSpan(event.message)}`,
        );
        break;
      case 'turn_end':
        this.showCompactions();
        break;
    }
  };

  private showCompactions(): void {
    for (const c of this.compactions.splice(0)) compactionNotice(this.stream, this.options.sessionId, c);
  }

  private turnChanges(turnId: string, files: number, added: number, removed: number): void {
    notice(this.stream, 'diff', `${files} file${files === 1 ? '' : 's'} changed (+${added} −${removed})`);
    const args = [this.options.sessionId, turnId];
    this.stream.button({ command: 'agentTape.reviewTurnChanges', arguments: args, title: 'Review Changes' });
    this.stream.button({ command: 'agentTape.undoTurnChanges', arguments: args, title: "Undo This Turn's Changes" });
  }

  /** A subagent's steps as progress lines; once it is linked, its outcome and a way to open its session. */
  private subagent(childSessionId: string, line: string, outcome: SubagentOutcome | undefined): void {
    if (outcome === undefined) {
      this.stream.progress(`Subagent: ${codeSpan(oneLine(line, PROGRESS_MAX))}…`);
      return;
    }
    notice(this.stream, outcome === 'completed' ? 'check' : 'warning', `Subagent ${outcome}; its session ${codeSpan(childSessionId)} is linked on the tape.`);
    this.stream.button({ command: 'agentTape.openInspector', arguments: [childSessionId], title: 'Open Subagent Session' });
  }

  private afterTool(name: string, input: unknown): void {
    if (name === 'tape_handoff' && isRecord(input) && typeof input.name === 'string') {
      notice(this.stream, 'milestone', `Handoff ${codeSpan(`handoff/${input.name}`)}: the next request starts from its summary.`);
      return;
    }
    if (!FILE_TOOLS.has(name) || !isRecord(input) || typeof input.path !== 'string') return;
    const uri = vscode.Uri.joinPath(this.options.root, input.path);
    if (this.referenced.has(uri.toString())) return;
    this.referenced.add(uri.toString());
    this.stream.reference(uri, new vscode.ThemeIcon(name === 'apply_edit' ? 'edit' : 'file'));
  }
}

/** A compaction, automatic or `/compact`: what its summary kept and left out, and Review (the inspector's Anchors view on it). */
export function compactionNotice(stream: vscode.ChatResponseStream, sessionId: string, compaction: CompactionNotice): void {
  notice(stream, 'fold', compactionSentence(compaction));
  stream.button({ command: 'agentTape.inspector.showAnchor', arguments: [sessionId, compaction.anchorEntryId], title: 'Review' });
}

/** A line set apart from the answer, with a codicon. */
export function notice(stream: vscode.ChatResponseStream, icon: string, text: string): void {
  stream.markdown(new vscode.MarkdownString(`\n\n$(${icon}) *${text}*\n\n`, true));
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
