import * as z from 'zod';
import { errorMessage } from '../../tape/errorMessage';
import { utf8Prefix } from '../../tape/utf8Prefix';
import type { ToolDefinition } from '../model/modelPort';
import type { SubagentPort } from '../subagent/subagentPort';
import type { TapePort } from '../tapeToolPort/tapePort';
import type { Permissions } from '../workspace/permissions';
import type { WorkspacePort } from '../workspace/workspacePort';
import type { ToolCallRef } from './toolCallRef';
import { isToolEffect, type ToolEffect } from './toolEffect';

/** Every tool output is stored on the tape whole up to this many UTF-8 bytes. */
export const MAX_TOOL_OUTPUT_BYTES = 64 * 1024;

/** read_file sees, and apply_edit edits, at most this much of a file: no more is read from disk. */
export const MAX_FILE_READ_BYTES = 4 * 1024 * 1024;

export interface ToolResult {
  readonly status: 'ok' | 'error';
  readonly output: string;
  readonly truncated?: boolean;
}

export interface ToolContext {
  readonly workspace: WorkspacePort;
  readonly permissions: Permissions;
  /** Cancels a running tool (the turn was cancelled). */
  readonly signal?: AbortSignal;
  /** The session's tape, for the tape_* tools; a host without one gets error results from them. */
  readonly tape?: TapePort;
  /** Runs child sessions, for run_subagent; only an agent session has one. */
  readonly subagents?: SubagentPort;
  /** Set by the agent loop for each call it runs. */
  readonly call?: ToolCallRef;
}

export interface Tool<S extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  /** What a call may change: required, so a new tool cannot leave checkpoints and confirmations to a guess. */
  readonly effect: ToolEffect;
  // Method syntax keeps a registry of differently typed tools assignable to Tool[].
  run(input: z.output<S>, ctx: ToolContext): Promise<ToolResult>;
}

/** What the model is told about a tool: the JSON Schema comes from the same zod schema that validates its input. */
export function toolSpec(tool: Tool): ToolDefinition {
  const { $schema: _dialect, ...parameters } = z.toJSONSchema(tool.inputSchema, { io: 'input' }) as Record<string, unknown>;
  return { name: tool.name, description: tool.description, parameters };
}

/**
 * What a turn's tool calls go to: the definitions the model is offered and the way a call runs.
 * The registry runs the core's tools itself; a host can put its own in between (an editor that
 * confirms edits in its own UI, or offers tools of other extensions).
 */
export interface Toolbox {
  specs(): ToolDefinition[];
  /** The effect of a tool it offers; undefined for one it knows nothing of (another extension's). */
  effectOf(name: string): ToolEffect | undefined;
  /** Never throws: every failure is an `error` result the model can read. */
  invoke(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult>;
}

export class ToolRegistry implements Toolbox {
  private readonly byName = new Map<string, Tool>();

  constructor(tools: readonly Tool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
      // A tool written in plain JavaScript, or cast, can still lack the marker the type requires.
      if (!isToolEffect(tool.effect)) throw new Error(`tool "${tool.name}" has no effect (read, tape, edit, command or delegate)`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): Tool | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  specs(): ToolDefinition[] {
    return [...this.byName.values()].map(toolSpec);
  }

  effectOf(name: string): ToolEffect | undefined {
    return this.byName.get(name)?.effect;
  }

  invoke(name: string, input: unknown, ctx: ToolContext): Promise<ToolResult> {
    return invokeTool(this, name, input, ctx);
  }
}

/**
 * Runs one tool call as the model made it. Whatever goes wrong (an unknown tool, input that fails
 * the schema, a refused path or permission, any exception) becomes an `error` result the model can
 * read, and every output is capped at MAX_TOOL_OUTPUT_BYTES.
 */
export async function invokeTool(registry: ToolRegistry, name: string, rawInput: unknown, ctx: ToolContext): Promise<ToolResult> {
  const tool = registry.get(name);
  if (!tool) return { status: 'error', output: `unknown tool "${name}"; available tools: ${registry.names().join(', ')}` };
  const parsed = tool.inputSchema.safeParse(rawInput);
  if (!parsed.success) return { status: 'error', output: `invalid input for ${name}: ${z.prettifyError(parsed.error)}` };
  let result: ToolResult;
  try {
    result = await tool.run(parsed.data, ctx);
  } catch (error) {
    result = { status: 'error', output: `${name} failed: ${errorMessage(error)}` };
  }
  return capResult(result);
}

/** Caps an output at MAX_TOOL_OUTPUT_BYTES, saying so in the text and in `truncated`. */
export function capResult(result: ToolResult): ToolResult {
  if (Buffer.byteLength(result.output, 'utf8') <= MAX_TOOL_OUTPUT_BYTES) return result;
  const note = `\n[output truncated at ${MAX_TOOL_OUTPUT_BYTES} bytes]`;
  return { status: result.status, output: utf8Prefix(result.output, MAX_TOOL_OUTPUT_BYTES - Buffer.byteLength(note)) + note, truncated: true };
}
