import * as vscode from 'vscode';
import { defaultTools } from '../../agent/agentSession';
import type { ToolDefinition } from '../../agent/model/modelPort';
import { capResult, invokeTool, type ToolContext, type Toolbox, type ToolResult } from '../../agent/tools/tool';
import { asksFirst, type ToolEffect } from '../../agent/tools/toolEffect';
import { errorMessage } from '../../tape/errorMessage';
import { cancellationOf, isCancellationError } from '../cancellation';
import { toolResults } from './toolResultHandoff';

export interface ChatToolboxOptions {
  /** The chat request's token: VS Code shows the calls it runs, and their confirmations, in that chat. */
  readonly toolInvocationToken: vscode.ChatParticipantToolToken | undefined;
  /** Names from the setting agentTape.extraTools: other extensions' tools to offer as well. */
  readonly extraTools: readonly string[];
  /** `vscode.workspace.isTrusted`: an untrusted workspace is not offered the tools that ask first. */
  readonly isTrusted: boolean;
  readonly log: vscode.LogOutputChannel;
}

/** What VS Code answers, instead of running the tool, when the user clicks "Skip" on a confirmation (workbench, 1.139). */
const SKIPPED_PREFIX = 'The user chose to skip the tool call';

/** Setting entries already warned about, so a bad name is logged once per window, not once per request. */
const warned = new Set<string>();

/**
 * The tools of one `@tape` chat request. Core tools whose effect asks first (apply_edit,
 * run_command) go through `vscode.lm.invokeTool`, so VS Code asks the user in the chat (our
 * registered tool's confirmation) and then runs our registered tool, whose
 * structured result comes back through `toolResults`. Tools of other extensions go through VS
 * Code too, with their own confirmations. The other core tools run in-process through the core.
 */
export class ChatToolbox implements Toolbox {
  private readonly core = defaultTools();
  private readonly offered: ReadonlyMap<string, ToolDefinition>;
  private readonly extra: ReadonlySet<string>;

  constructor(private readonly options: ChatToolboxOptions) {
    const offered = new Map<string, ToolDefinition>();
    for (const spec of this.core.specs()) {
      if (options.isTrusted || !asksFirst(this.core.effectOf(spec.name))) offered.set(spec.name, spec);
    }
    const extra = new Set<string>();
    for (const name of options.extraTools) {
      const tool = vscode.lm.tools.find((t) => t.name === name);
      if (this.core.get(name) !== undefined) this.warnOnce(name, `agentTape.extraTools: "${name}" is one of Agent Tape's own tools; the entry is ignored`);
      else if (tool === undefined) this.warnOnce(name, `agentTape.extraTools: no tool named "${name}" is registered in VS Code; the entry is ignored`);
      else {
        offered.set(name, { name, description: tool.description, parameters: { type: 'object', properties: {}, ...tool.inputSchema } });
        extra.add(name);
      }
    }
    this.offered = offered;
    this.extra = extra;
  }

  /** True for the tools that run through `vscode.lm.invokeTool`: VS Code shows those calls in the chat itself. */
  shownByEditor(name: string): boolean {
    return this.offered.has(name) && (asksFirst(this.core.effectOf(name)) || this.extra.has(name));
  }

  specs(): ToolDefinition[] {
    return [...this.offered.values()];
  }

  /** Another extension's tools have none: they count as changing files. */
  effectOf(name: string): ToolEffect | undefined {
    return this.core.effectOf(name);
  }

  async invoke(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    if (!this.offered.has(name)) {
      const why =
        asksFirst(this.core.effectOf(name)) && !this.options.isTrusted ? `${name} is not available in an untrusted workspace` : `unknown tool "${name}"`;
      return { status: 'error', output: `${why}; available tools: ${[...this.offered.keys()].join(', ')}` };
    }
    if (!this.shownByEditor(name)) return invokeTool(this.core, name, input, ctx);
    // Checked here so the user is never asked to confirm a call the core would reject anyway.
    const parsed = this.core.get(name)?.inputSchema.safeParse(input);
    if (parsed?.success === false) return invokeTool(this.core, name, input, ctx);
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      return { status: 'error', output: `invalid input for ${name}: expected a JSON object` };
    return this.viaVsCode(name, input, ctx.signal);
  }

  private async viaVsCode(name: string, input: object, signal: AbortSignal | undefined): Promise<ToolResult> {
    const slot = toolResults.expect(name, input);
    const cancellation = cancellationOf(signal);
    try {
      const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: this.options.toolInvocationToken }, cancellation.token);
      const reported = slot.take();
      if (reported !== undefined) return reported;
      const text = result.content
        .filter((p) => p instanceof vscode.LanguageModelTextPart)
        .map((p) => p.value)
        .join('\n');
      return text.startsWith(SKIPPED_PREFIX) ? declined(name, input) : capResult({ status: 'ok', output: text });
    } catch (error) {
      const reported = slot.take();
      if (reported !== undefined) return reported;
      if (signal?.aborted) return { status: 'error', output: `${name} was cancelled with the turn; nothing was changed` };
      if (isCancellationError(error)) return declined(name, input);
      this.options.log.warn(`tool ${name} failed in VS Code: ${String(error)}`);
      return capResult({ status: 'error', output: `${name} failed: ${errorMessage(error)}` });
    } finally {
      cancellation.dispose();
    }
  }

  private warnOnce(name: string, message: string): void {
    if (warned.has(name)) return;
    warned.add(name);
    this.options.log.warn(message);
  }
}

function declined(name: string, input: object): ToolResult {
  if (name === 'apply_edit')
    return { status: 'error', output: `the user declined the edit; ${'path' in input ? String(input.path) : 'the file'} was not changed` };
  if (name === 'run_command') return { status: 'error', output: 'the user declined to run the command; nothing was run' };
  return { status: 'error', output: `the user declined to run ${name}; nothing was changed` };
}
