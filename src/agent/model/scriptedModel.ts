import type { ModelEvent, ModelInfo, ModelMessage, ModelPort, ModelRequest, StopReason, ToolCall, Usage } from './modelPort';
import type { ProviderError } from './providerError';
import { TokenEstimator } from './tokenEstimator';
import { parseCall } from './toolCallAssembler';

/** One step of a scripted response; tool-call arguments given as a string go through the same parser. */
export type ScriptedStep =
  | { text: string }
  | { toolCall: { id: string; name: string; arguments: Record<string, unknown> | string } }
  | { usage: Omit<Usage, 'estimated'> }
  | { error: ProviderError }
  | { stop: StopReason };

/**
 * A model for tests: each request consumes the next scripted response and is recorded. A response
 * without a stop ends with `tool_calls` when it called a tool, else `stop`; an `error` step throws
 * there, after the steps before it were streamed.
 */
export class ScriptedModel implements ModelPort {
  readonly requests: ModelRequest[] = [];
  private readonly estimator = new TokenEstimator();
  private next = 0;

  constructor(
    private readonly responses: readonly (readonly ScriptedStep[])[],
    readonly info: ModelInfo = { id: 'scripted', vendor: 'test', contextWindow: 32_000, maxOutput: 4_000 },
  ) {}

  get remaining(): number {
    return this.responses.length - this.next;
  }

  countTokens(input: string | readonly ModelMessage[]): number {
    return this.estimator.count(input);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    this.requests.push(request);
    const response = this.responses[this.next++];
    if (response === undefined) throw new Error(`ScriptedModel: request ${this.next} has no scripted response`);
    let calledTool = false;
    for (const step of response) {
      // A real stream hands control back between chunks; so does this one, so a cancel can land.
      await Promise.resolve();
      if (signal.aborted) {
        yield { type: 'stop', reason: 'cancelled' };
        return;
      }
      if ('text' in step) yield { type: 'text', delta: step.text };
      else if ('toolCall' in step) {
        calledTool = true;
        yield { type: 'tool_call', call: scriptedCall(step.toolCall) };
      } else if ('usage' in step) yield { type: 'usage', usage: { ...step.usage, estimated: false } };
      else if ('error' in step) throw step.error;
      else {
        yield { type: 'stop', reason: step.stop };
        return;
      }
    }
    yield { type: 'stop', reason: calledTool ? 'tool_calls' : 'stop' };
  }
}

function scriptedCall(c: { id: string; name: string; arguments: Record<string, unknown> | string }): ToolCall {
  return parseCall(c.id, c.name, typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments));
}
