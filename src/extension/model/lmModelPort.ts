import * as vscode from 'vscode';
import type { ModelEvent, ModelInfo, ModelMessage, ModelPort, ModelRequest, ToolCall } from '../../agent/model/modelPort';
import { ProviderError, classifyStatus, type FailureClass } from '../../agent/model/providerError';
import { TokenEstimator } from '../../agent/model/tokenEstimator';
import { errorMessage } from '../../tape/errorMessage';
import { cancellationOf } from '../cancellation';
import { toLmMessages, toLmTools } from './lmMessages';
import { OWN_VENDOR } from './providerSettings';
import { promptOf } from '../../tape/modelRequest';

const MAX_OUTPUT_CAP = 4096;
const JUSTIFICATION = 'Agent Tape sends the conversation on its tape and its tools to the model you picked.';

/**
 * The core's model port over a model VS Code offers (the one picked in the chat UI). VS Code gives
 * a consumer only `maxInputTokens`; the answer comes on top of it, so the window the core budgets
 * with is that input plus a nominal answer (a quarter of the input, at most 4096 tokens): the
 * core's input budget (window - output - reserve) is then exactly what the model accepts, whatever
 * its real output limit. VS Code's API has no output cap a consumer could pass on.
 * Token counts are the core's estimates: the port is synchronous and `countTokens` of VS Code is not.
 */
export class LmModelPort implements ModelPort {
  readonly info: ModelInfo;
  private readonly estimator = new TokenEstimator();

  constructor(private readonly model: vscode.LanguageModelChat) {
    const maxOutput = Math.min(MAX_OUTPUT_CAP, Math.floor(model.maxInputTokens / 4));
    this.info = { id: model.id, vendor: model.vendor, contextWindow: model.maxInputTokens + maxOutput, maxOutput };
  }

  countTokens(input: string | readonly ModelMessage[]): number {
    return this.estimator.count(input);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    if (signal.aborted) {
      yield { type: 'stop', reason: 'cancelled' };
      return;
    }
    const cancellation = cancellationOf(signal);
    const calls: ToolCall[] = [];
    let outputChars = 0;
    try {
      try {
        // Raced with the signal: a provider that ignores the cancellation (or a consent dialog) must not hold up a cancel.
        const response = await orAbort(
          this.model.sendRequest(
            toLmMessages(request.messages),
            { ...(request.tools.length > 0 ? { tools: toLmTools(request.tools) } : {}), justification: JUSTIFICATION },
            cancellation.token,
          ),
          signal,
        );
        const parts = response === ABORTED ? undefined : response.stream[Symbol.asyncIterator]();
        while (parts !== undefined) {
          const next = await orAbort(parts.next(), signal);
          if (next === ABORTED || next.done === true) break;
          const part: unknown = next.value;
          if (part instanceof vscode.LanguageModelTextPart) {
            outputChars += part.value.length;
            yield { type: 'text', delta: part.value };
          } else if (part instanceof vscode.LanguageModelToolCallPart) {
            const call = toolCallOf(part);
            outputChars += call.name.length + call.rawArguments.length;
            calls.push(call);
          }
        }
      } catch (e) {
        // Whatever a cancelled request throws (VS Code's "Canceled", a provider's abort) is the cancel itself.
        if (!signal.aborted) throw this.failureOf(e);
      }
      // Calls are handed over only once the answer is complete, as the port promises.
      if (!signal.aborted) for (const call of calls) yield { type: 'tool_call', call };
      yield {
        type: 'usage',
        usage: { inputTokens: this.estimator.count(promptOf(request)), outputTokens: this.estimator.countChars(outputChars), estimated: true },
      };
      yield { type: 'stop', reason: signal.aborted ? 'cancelled' : calls.length > 0 ? 'tool_calls' : 'stop' };
    } finally {
      // Also ends the provider's work when the consumer stops reading early.
      cancellation.dispose();
    }
  }

  private failureOf(e: unknown): ProviderError {
    if (e instanceof ProviderError) return e;
    const message = errorMessage(e);
    if (e instanceof vscode.LanguageModelError) {
      const failure = LM_ERROR_CODES[e.code];
      if (failure !== undefined) return new ProviderError(failure, { detail: message });
    }
    // Our own provider's errors cross VS Code as name and message only; the message starts with the headline.
    if (this.model.vendor === OWN_VENDOR) {
      const own = parseProviderErrorMessage(message);
      if (own !== undefined) return own;
    }
    // Other vendors' words for a too-long prompt are the ones OpenAI-compatible servers use.
    if (classifyStatus(400, message) === 'context_too_long') return new ProviderError('context_too_long', { detail: message });
    return new ProviderError('server', { detail: message });
  }
}

const ABORTED = Symbol('aborted');

/** The promise's value, or ABORTED as soon as the signal aborts; a later rejection is then ignored. */
function orAbort<T>(promise: Thenable<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) return Promise.resolve(ABORTED);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(ABORTED);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

/**
 * `Blocked` is how VS Code reports an exhausted quota or a throttled extension: it lifts with time,
 * like a rate limit, whereas missing consent (`NoPermissions`) needs the user.
 */
const LM_ERROR_CODES: Partial<Record<string, FailureClass>> = {
  NoPermissions: 'auth',
  Blocked: 'rate_limit',
  NotFound: 'model_missing',
};

function toolCallOf(part: vscode.LanguageModelToolCallPart): ToolCall {
  const input: unknown = part.input;
  const rawArguments = JSON.stringify(input) ?? '';
  if (!part.name) return { id: part.callId, name: '', valid: false, rawArguments, problem: 'the tool call has no name' };
  // The provider is another extension: its input is data to check, not a shape to trust.
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { id: part.callId, name: part.name, valid: false, rawArguments, problem: 'the arguments are not a JSON object' };
  }
  return { id: part.callId, name: part.name, valid: true, arguments: { ...input }, rawArguments };
}

const FAILURE_CLASSES: Record<FailureClass, true> = {
  unreachable: true,
  auth: true,
  model_missing: true,
  context_too_long: true,
  rate_limit: true,
  server: true,
  timeout: true,
  cancelled: true,
  bad_response: true,
  key_withheld: true,
};

/**
 * Recovers a `ProviderError` from its message, `<headline>[ (HTTP <status>)][: <detail>]`, as
 * `ProviderError` writes it. The headlines are read from `ProviderError` itself so the two cannot
 * drift apart. The server's Retry-After does not survive the trip; the retry's own backoff applies.
 */
function parseProviderErrorMessage(message: string): ProviderError | undefined {
  for (const failure of Object.keys(FAILURE_CLASSES) as FailureClass[]) {
    const headline = new ProviderError(failure).message;
    if (!message.startsWith(headline)) continue;
    const rest = /^(?: \(HTTP (\d{3})\))?(?:: ([\s\S]*))?$/.exec(message.slice(headline.length));
    if (rest === null) continue;
    return new ProviderError(failure, { ...(rest[1] !== undefined ? { status: Number(rest[1]) } : {}), ...(rest[2] !== undefined ? { detail: rest[2] } : {}) });
  }
  return undefined;
}
