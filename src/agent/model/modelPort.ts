import type { ModelInfo, ModelMessage, ModelRequest, Usage } from '../../tape/modelRequest';

// The request vocabulary is the tape's (the context builder assembles requests); the port speaks it.
export type { ModelInfo, ModelMessage, ModelRequest, ToolDefinition, Usage } from '../../tape/modelRequest';

export type ToolCall =
  | { id: string; name: string; valid: true; arguments: Record<string, unknown>; rawArguments: string }
  /** The model sent arguments that are not a JSON object: the loop answers with an error result. */
  | { id: string; name: string; valid: false; rawArguments: string; problem: string };

export type StopReason = 'stop' | 'tool_calls' | 'length' | 'content_filter' | 'cancelled' | 'other';

/**
 * Text arrives as deltas; tool calls only once complete; usage (at most once) and then exactly one
 * stop end every stream that does not throw. Failures are thrown as `ProviderError`s; a
 * cancellation is not a failure but the stop reason `cancelled`.
 */
export type ModelEvent =
  { type: 'text'; delta: string } | { type: 'tool_call'; call: ToolCall } | { type: 'usage'; usage: Usage } | { type: 'stop'; reason: StopReason };

export interface ModelPort {
  readonly info: ModelInfo;
  countTokens(input: string | readonly ModelMessage[]): number;
  stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ModelEvent>;
}
