import type { PromptMessage } from './context';
import type { SamplingOptions } from './requestParams';

/**
 * A model request as the tape describes it: the context builder assembles one from the tape prefix
 * and the model's facts, its manifest records them, and anchors and attempt events record what a
 * request cost. The agent's model port speaks the same types.
 */

/** What the context builder needs to fit a request: the budget facts of one model. */
export interface ModelInfo {
  id: string;
  vendor: string;
  contextWindow: number;
  maxOutput: number;
}

/**
 * A request message is a context message without its tape bookkeeping, so the context the tape
 * builds is sent as is: tool calls are assistant messages carrying `toolCallId`/`toolName` with the
 * arguments as JSON text in `content`, tool results are `tool` messages.
 */
export type ModelMessage = PromptMessage;

export interface ToolDefinition {
  name: string;
  description: string;
  /** A JSON Schema object describing the tool's arguments. */
  parameters: Record<string, unknown>;
}

/**
 * What a model port sends. The sampling options are sent only when present (the server's defaults
 * otherwise); the manifest's `params` records `maxOutput` and the options of the request as built.
 */
export interface ModelRequest extends SamplingOptions {
  messages: readonly ModelMessage[];
  tools: readonly ToolDefinition[];
  maxOutput: number;
}

/**
 * The tool definitions as JSON text, kept per array like their hash (`toolsHashOf`): a definitions
 * array is built whole and never changed, and every request that offers it counts its text.
 */
export function toolsJsonOf(tools: readonly ToolDefinition[]): string {
  let json = toolsJson.get(tools);
  if (json === undefined) toolsJson.set(tools, (json = JSON.stringify(tools)));
  return json;
}
const toolsJson = new WeakMap<readonly ToolDefinition[], string>();

/** What a model reads of a request, to count it: the messages and, as chat templates render them, the tool schemas. */
export function promptOf(request: ModelRequest): readonly ModelMessage[] {
  return request.tools.length === 0 ? request.messages : [...request.messages, { role: 'system', content: toolsJsonOf(request.tools) }];
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  /** True when the server reported no counts and these are the estimator's. */
  estimated: boolean;
}
