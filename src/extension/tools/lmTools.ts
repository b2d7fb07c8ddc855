import * as vscode from 'vscode';
import { defaultTools } from '../../agent/agentSession';
import type { TapePort } from '../../agent/tapeToolPort/tapePort';
import { invokeTool, type ToolResult } from '../../agent/tools/tool';
import { asksFirst } from '../../agent/tools/toolEffect';
import { errorMessage } from '../../tape/errorMessage';
import { abortSignalOf } from '../cancellation';
import type { Deps } from '../deps';
import { readAgentSettings } from '../settings';
import { handoffConfirmation } from './handoffConfirmation';
import { codeSpan, shownBlock } from './markdownCode';
import { contributedToolNames } from './toolContributions';
import { callKey, toolResults } from './toolResultHandoff';
import { VsCodeWorkspace } from './vscodeWorkspace';

/**
 * Registers the core tools with VS Code (`vscode.lm.tools`), so any chat (Copilot's agent mode,
 * `#read_file` references, our own `@tape`) can call them. VS Code asks the user before
 * apply_edit and run_command with the confirmation prepared here; by the time `invoke` runs the
 * user has agreed, so the core gets its permissions granted. tape_handoff asks too: every call of
 * the registered one comes from another chat (see handoffConfirmation.ts).
 *
 * A core error result is thrown as an Error with the core's text: VS Code then shows the call as
 * failed and hands the text to the calling model as an error, where a returned text would read as
 * success. Our chat toolbox gets the structured result through `toolResults` either way.
 */
export function registerLmTools(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const registry = defaultTools();
  const workspaceRoot = (): vscode.Uri | undefined => vscode.workspace.workspaceFolders?.[0]?.uri;
  // Outside @tape (agent mode, a #reference) the tape tools work on the session @tape used last;
  // without one they answer with an error result.
  const sessionTape = (): TapePort | undefined => {
    const ws = deps.tape.opened;
    const sessionId = ws && deps.sessions.current(ws.store);
    return ws && sessionId !== undefined ? deps.tape.tapeOf(ws).session(sessionId).tapePort() : undefined;
  };
  // apply_edit calls whose dry run failed, so no confirmation was shown. Their invoke gets no
  // permission to edit: were the file changed in between so that the edit now applies, it still
  // would not be written unasked. A mark left by a call VS Code never invoked can only refuse.
  const unconfirmed = new Map<string, number>();
  // The session each tape_handoff call was confirmed for: the call writes there, even if @tape has
  // moved on to another session while the question was open. A call without one gets no tape.
  const handoffTapes = new Map<string, TapePort>();

  const workspace = (): VsCodeWorkspace | undefined => {
    const root = workspaceRoot();
    return root === undefined ? undefined : new VsCodeWorkspace(root, { commandEnv: { pass: readAgentSettings(deps.log).commandEnvAllowlist } });
  };

  async function run(name: string, input: unknown, token: vscode.CancellationToken): Promise<ToolResult> {
    if (asksFirst(registry.effectOf(name)) && !vscode.workspace.isTrusted) {
      return { status: 'error', output: `${name} is refused in an untrusted workspace; nothing was changed` };
    }
    const askedFirst = !(name === 'apply_edit' && takeMark(unconfirmed, callKey(name, input)));
    const abort = abortSignalOf(token);
    try {
      const ws = workspace();
      if (ws === undefined) return { status: 'error', output: `${name} needs an open workspace folder, and none is open` };
      const tape = name === 'tape_handoff' ? takeHandoffTape(callKey(name, input)) : sessionTape();
      return await invokeTool(registry, name, input, { workspace: ws, permissions: { edits: askedFirst, commands: true }, signal: abort.signal, tape });
    } catch (error) {
      return { status: 'error', output: `${name} failed: ${errorMessage(error)}` };
    } finally {
      abort.dispose();
    }
  }

  async function prepareEdit(input: unknown, message: vscode.MarkdownString, token: vscode.CancellationToken): Promise<vscode.PreparedToolInvocation> {
    const edit = fieldsOf(input);
    const path = stringField(edit, 'path');
    const newText = stringField(edit, 'newText');
    const abort = abortSignalOf(token);
    try {
      const ws = workspace();
      if (ws !== undefined && path !== undefined && newText !== undefined && (await editApplies(ws, input, abort.signal))) {
        const oldText = stringField(edit, 'oldText');
        const exists = (await ws.stat(path)) !== undefined;
        const body = new vscode.MarkdownString(`${codeSpan(path)}\n\n`);
        body.appendMarkdown(oldText === undefined ? shownBlock(newText, '') : shownBlock(diffOf(oldText, newText), 'diff'));
        return {
          invocationMessage: message,
          confirmationMessages: { title: oldText !== undefined ? 'Edit this file?' : exists ? 'Overwrite this file?' : 'Create this file?', message: body },
        };
      }
    } catch (error) {
      deps.log.warn(`apply_edit: the dry run failed: ${String(error)}`);
    } finally {
      abort.dispose();
    }
    addMark(unconfirmed, callKey('apply_edit', input));
    return { invocationMessage: message };
  }

  /**
   * The core's own checks, run with a permission that records being asked and says no: the core
   * asks only once the edit is known to apply, and writes nothing when refused.
   */
  async function editApplies(ws: VsCodeWorkspace, input: unknown, signal: AbortSignal): Promise<boolean> {
    let asked = false;
    const permissions = {
      ask: async () => {
        asked = true;
        return false;
      },
    };
    await invokeTool(registry, 'apply_edit', input, { workspace: ws, permissions, signal });
    return asked;
  }

  function prepareCommand(input: unknown, message: vscode.MarkdownString): vscode.PreparedToolInvocation {
    const fields = fieldsOf(input);
    const command = stringField(fields, 'command') ?? '';
    const timeout = fields.timeoutMs;
    const body = new vscode.MarkdownString(`In ${codeSpan(workspaceRoot()?.fsPath ?? '(no folder open)')}:\n\n`);
    body.appendMarkdown(shownBlock(command, 'sh'));
    if (typeof timeout === 'number') body.appendMarkdown(`\n\nKilled after ${timeout} ms if still running.`);
    return { invocationMessage: message, confirmationMessages: { title: 'Run this command?', message: body } };
  }

  function prepareHandoff(input: unknown, message: vscode.MarkdownString): vscode.PreparedToolInvocation {
    const tape = sessionTape();
    const info = tape?.info();
    const confirmation = handoffConfirmation(input, info && { sessionId: info.sessionId, title: info.title });
    if (tape === undefined || confirmation === undefined) return { invocationMessage: message };
    handoffTapes.set(callKey('tape_handoff', input), tape);
    return { invocationMessage: message, confirmationMessages: { title: confirmation.title, message: new vscode.MarkdownString(confirmation.message) } };
  }

  function takeHandoffTape(key: string): TapePort | undefined {
    const tape = handoffTapes.get(key);
    handoffTapes.delete(key);
    return tape;
  }

  const registrations = contributedToolNames().map((name) =>
    vscode.lm.registerTool<unknown>(name, {
      prepareInvocation: ({ input }, token) => {
        const message = invocationMessage(name, fieldsOf(input));
        if (name === 'apply_edit') return prepareEdit(input, message, token);
        if (name === 'run_command') return prepareCommand(input, message);
        if (name === 'tape_handoff') return prepareHandoff(input, message);
        return { invocationMessage: message };
      },
      invoke: async ({ input }, token) => {
        const result = await run(name, input, token);
        deps.log.info(`tool ${name}: ${result.status}${result.truncated ? ' (truncated)' : ''}`);
        toolResults.report(name, input, result);
        if (result.status === 'error') throw new Error(result.output);
        return new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(result.output)]);
      },
    }),
  );
  return vscode.Disposable.from(...registrations);
}

/** What the chat shows while a call runs; model-given values are code spans, never Markdown. */
function invocationMessage(name: string, input: Record<string, unknown>): vscode.MarkdownString {
  const code = (key: string) => {
    const value = input[key];
    return typeof value === 'string' ? codeSpan(value) : '';
  };
  const ids = Array.isArray(input.entryIds) ? input.entryIds.filter((id) => typeof id === 'number').join(', ') : '';
  const lines =
    typeof input.startLine === 'number' || typeof input.endLine === 'number'
      ? ` (lines ${String(input.startLine ?? 1)}–${String(input.endLine ?? 'end')})`
      : '';
  const text: Record<string, string> = {
    read_file: `Reading ${code('path')}${lines}`,
    list_dir: `Listing ${code('path')}`,
    find_files: `Finding files matching ${code('pattern')}`,
    search_text: `Searching for ${code('query')}${typeof input.include === 'string' ? ` in ${code('include')}` : ''}`,
    apply_edit: `Editing ${code('path')}`,
    run_command: `Running ${code('command')}`,
    tape_search: `Searching the tape for ${code('query')}`,
    tape_context: `Reading tape entries ${ids}`,
    tape_handoff: `Leaving the handoff ${code('name')} on the tape`,
    tape_info: "Reading the tape's summary",
    tape_anchors: "Listing the tape's anchors",
  };
  return new vscode.MarkdownString(text[name] ?? `Running ${name}`);
}

function fieldsOf(input: unknown): Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
}

function stringField(fields: Record<string, unknown>, key: string): string | undefined {
  const value = fields[key];
  return typeof value === 'string' ? value : undefined;
}

/** The edit as removed and added lines (the replaced text, not the whole file). */
function diffOf(oldText: string, newText: string): string {
  const lines = (text: string, sign: string) =>
    text === ''
      ? []
      : text
          .replace(/\n$/, '')
          .split('\n')
          .map((l) => `${sign}${l}`);
  return [...lines(oldText, '-'), ...lines(newText, '+')].join('\n');
}

function addMark(marks: Map<string, number>, key: string): void {
  marks.set(key, (marks.get(key) ?? 0) + 1);
}

function takeMark(marks: Map<string, number>, key: string): boolean {
  const count = marks.get(key) ?? 0;
  if (count === 0) return false;
  if (count === 1) marks.delete(key);
  else marks.set(key, count - 1);
  return true;
}
