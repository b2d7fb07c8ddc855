import type { ModelPort, ModelRequest, StopReason, ToolCall, Usage } from './modelPort';
import type { FailureClass } from './providerError';
import { ProviderError } from './providerError';
import { streamWithRetry, type AttemptRecord, type RetryPolicy } from './retry';

/**
 * One request: streamed through a model port with retries, its answer collected whole. Nothing is
 * written and no tool is run; the caller records what it wants, as it comes (the turn loop: each
 * attempt as a `provider/attempt`, the text as pending revisions) or at the end (an evaluation step).
 */

export interface ModelResponse {
  /** `failed`: the provider failed (after retries); `cancelled`: the signal ended it. */
  status: 'ok' | 'failed' | 'cancelled';
  /** The text streamed, also the part streamed before a failure or a cancel. */
  text: string;
  /** The tool calls, parsed (or flagged invalid with their raw text), in the order sent; none unless `ok`. */
  toolCalls: ToolCall[];
  stopReason: StopReason | null;
  /** The last attempt's usage, when it reported one. */
  usage: Usage | null;
  /** From the send to the end of the stream, retries and their waits included. */
  latencyMs: number;
  attempts: AttemptRecord[];
  /** What an `error/provider` entry records of the failure (the status when the server answered with one). */
  error: { failureClass: FailureClass; message: string; transient: boolean; status?: number } | null;
}

export interface SendOptions {
  signal: AbortSignal;
  retry?: RetryPolicy;
  now?: () => number;
  /** Each physical attempt as it ends (a turn records it at once). */
  onAttempt?: (attempt: AttemptRecord) => void;
  /** Each text delta as it arrives (a turn streams it to the host). */
  onText?: (delta: string, text: string) => void;
}

/** Sends `request` through `port` and collects the response; a provider failure is the result `failed`, never thrown. */
export async function sendRequest(
  port: ModelPort,
  request: ModelRequest,
  { signal, retry, now = Date.now, onAttempt, onText }: SendOptions,
): Promise<ModelResponse> {
  const started = now();
  const attempts: AttemptRecord[] = [];
  let text = '';
  const toolCalls: ToolCall[] = [];
  let stopReason: StopReason | null = null;
  let usage: Usage | null = null;
  const done = (status: ModelResponse['status'], error: ProviderError | null = null): ModelResponse => ({
    status,
    text,
    toolCalls: status === 'ok' ? toolCalls : [],
    stopReason,
    usage,
    latencyMs: now() - started,
    attempts,
    error:
      error === null
        ? null
        : {
            failureClass: error.failureClass,
            message: error.message,
            transient: error.transient,
            ...(error.status === undefined ? {} : { status: error.status }),
          },
  });
  try {
    const attempted = (a: AttemptRecord) => {
      attempts.push(a);
      onAttempt?.(a);
    };
    for await (const event of streamWithRetry(port, request, signal, { policy: retry, onAttempt: attempted, now })) {
      if (event.type === 'text') {
        text += event.delta;
        onText?.(event.delta, text);
      } else if (event.type === 'tool_call') toolCalls.push(event.call);
      else if (event.type === 'usage') usage = event.usage;
      else stopReason = event.reason;
    }
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    return signal.aborted ? done('cancelled') : done('failed', e);
  }
  return done(stopReason === 'cancelled' || signal.aborted ? 'cancelled' : 'ok');
}
