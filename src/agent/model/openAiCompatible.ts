import OpenAI from 'openai';
import type { ModelEvent, ModelInfo, ModelMessage, ModelPort, ModelRequest, StopReason, ToolCall, Usage } from './modelPort';
import { fromOpenAiError, redirectRefused, timeoutError, type AbortCause } from './openAiErrors';
import { toChatMessages, toChatOptions, toChatTools } from './openAiMessages';
import { ProviderError } from './providerError';
import { TokenEstimator } from './tokenEstimator';
import { ToolCallAssembler } from './toolCallAssembler';
import { promptOf } from '../../tape/modelRequest';

export interface OpenAiCompatibleOptions {
  /** The API root, e.g. `http://127.0.0.1:11434/v1`; requests go to `<baseURL>/chat/completions`. */
  baseURL: string;
  /** Empty for local servers that need no key: then no Authorization header is sent at all. */
  apiKey: string;
  model: string;
  vendor?: string;
  contextWindow: number;
  maxOutput: number;
  /** How long the server may stay silent: before the response starts, and between two chunks. */
  timeoutMs?: number;
  /** OpenAI's newer models refuse `max_tokens`; most local servers only know it. */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

const DEFAULT_TIMEOUT_MS = 120_000;

/**
 * A model behind `/v1/chat/completions` (Ollama, LM Studio, vLLM, llama.cpp, OpenAI, ...), streamed
 * through the official client with its own retries off: `streamWithRetry` retries and records
 * every physical attempt.
 */
export class OpenAiCompatibleModel implements ModelPort {
  readonly info: ModelInfo;
  private readonly client: OpenAI;
  private readonly estimator = new TokenEstimator();
  private readonly timeoutMs: number;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.info = { id: options.model, vendor: options.vendor ?? 'openai-compatible', contextWindow: options.contextWindow, maxOutput: options.maxOutput };
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      // Explicit, so OPENAI_ORG_ID / OPENAI_PROJECT_ID in the environment never reach another server.
      organization: null,
      project: null,
      maxRetries: 0,
      timeout: this.timeoutMs,
      // A redirect comes back as the response (redirectRefused): the conversation goes nowhere else.
      fetchOptions: { redirect: 'manual' },
      ...(options.apiKey === '' ? { defaultHeaders: { Authorization: null } } : {}),
    });
  }

  countTokens(input: string | readonly ModelMessage[]): number {
    return this.estimator.count(input);
  }

  async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
    if (signal.aborted) {
      yield { type: 'stop', reason: 'cancelled' };
      return;
    }
    const controller = new AbortController();
    let abortCause: AbortCause;
    const abort = (cause: Exclude<AbortCause, undefined>) => {
      abortCause ??= cause;
      controller.abort();
    };
    const onCancel = () => abort('cancelled');
    signal.addEventListener('abort', onCancel, { once: true });
    let silence: NodeJS.Timeout | undefined;
    const watch = () => {
      clearTimeout(silence);
      silence = setTimeout(() => abort('timeout'), this.timeoutMs);
    };
    const assembler = new ToolCallAssembler();
    let outputChars = 0;
    let reported: OpenAI.CompletionUsage | undefined;
    let finish: string | undefined;
    let completed = false;
    try {
      try {
        watch();
        const chunks = await this.client.chat.completions.create(
          {
            model: this.options.model,
            messages: toChatMessages(request.messages),
            ...(request.tools.length > 0 ? { tools: toChatTools(request.tools) } : {}),
            [this.options.maxTokensField ?? 'max_tokens']: request.maxOutput,
            ...toChatOptions(request),
            stream: true,
            stream_options: { include_usage: true },
          },
          { signal: controller.signal },
        );
        for await (const chunk of chunks) {
          // The consumer's time between chunks is not the server's silence.
          clearTimeout(silence);
          if (chunk.usage) reported = chunk.usage;
          const choice = chunk.choices[0];
          const content = choice?.delta?.content;
          for (const f of choice?.delta?.tool_calls ?? [])
            assembler.add({ index: f.index, id: f.id, name: f.function?.name, arguments: f.function?.arguments });
          if (choice?.finish_reason) finish = choice.finish_reason;
          if (content) {
            outputChars += content.length;
            yield { type: 'text', delta: content };
          }
          watch();
        }
      } catch (e) {
        if (abortCause !== 'cancelled')
          throw redirectRefused(e, this.options.baseURL, this.options.apiKey) ?? fromOpenAiError(e, abortCause, this.options.apiKey, this.timeoutMs);
      }
      // The client ends a stream quietly when its request is aborted; the cause says why.
      if (abortCause === 'timeout') throw timeoutError(this.timeoutMs);
      if (abortCause === 'cancelled') {
        yield { type: 'usage', usage: this.usage(request, outputChars, reported) };
        yield { type: 'stop', reason: 'cancelled' };
        completed = true;
        return;
      }
      if (finish === undefined) throw new ProviderError('bad_response', { detail: 'the stream ended before the model finished' });
      const calls = assembler.finish();
      for (const call of calls) yield { type: 'tool_call', call };
      yield { type: 'usage', usage: this.usage(request, outputChars + argumentChars(calls), reported) };
      yield { type: 'stop', reason: stopReason(finish, calls.length > 0) };
      completed = true;
    } finally {
      clearTimeout(silence);
      signal.removeEventListener('abort', onCancel);
      // A consumer that stops early must not leave the connection streaming.
      if (!completed) controller.abort();
    }
  }

  /** The server's counts when it sent them (which also calibrate the estimator), else estimates. */
  private usage(request: ModelRequest, outputChars: number, reported: OpenAI.CompletionUsage | undefined): Usage {
    const prompt = promptOf(request);
    if (reported) {
      this.estimator.calibrate(prompt, reported.prompt_tokens);
      const cached = reported.prompt_tokens_details?.cached_tokens;
      return {
        inputTokens: reported.prompt_tokens,
        outputTokens: reported.completion_tokens,
        ...(cached !== undefined ? { cachedInputTokens: cached } : {}),
        estimated: false,
      };
    }
    return { inputTokens: this.estimator.count(prompt), outputTokens: this.estimator.countChars(outputChars), estimated: true };
  }
}

const argumentChars = (calls: readonly ToolCall[]): number => calls.reduce((n, c) => n + c.name.length + c.rawArguments.length, 0);

function stopReason(finish: string, hasCalls: boolean): StopReason {
  // Some local servers report `stop` after tool calls; the calls are what the loop must act on.
  if (hasCalls || finish === 'tool_calls' || finish === 'function_call') return 'tool_calls';
  if (finish === 'stop' || finish === 'length' || finish === 'content_filter') return finish;
  return 'other';
}
