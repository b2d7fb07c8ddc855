import type { PromptMessage } from '../../tape/context';

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

export interface ModelRequest {
  messages: readonly ModelMessage[];
  tools: readonly ToolDefinition[];
  maxOutput: number;
}

export type ToolCall =
  | { id: string; name: string; valid: true; arguments: Record<string, unknown>; rawArguments: string }
  /** The model sent arguments that are not a JSON object: the loop answers with an error result. */
  | { id: string; name: string; valid: false; rawArguments: string; problem: string };

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
  /** True when the server reported no counts and these are the estimator's. */
  estimated: boolean;
}

export type StopReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'cancelled' | 'other';

/**
 * Text arrives as deltas; tool calls only once complete; usage (at most once) and then exactly one
 * stop end every stream that does not throw. Failures are thrown as `ProviderError`s; a
 * cancellation is not a failure but the stop reason `cancelled`.
 */
export type ModelEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'usage'; usage: Usage }
  | { type: 'stop'; reason: StopReason };

export interface ModelPort {
  readonly info: ModelInfo;
  countTokens(input: string | readonly ModelMessage[]): number;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
