import { checkBaseUrl } from '../agent/model/baseUrl';
import { OpenAiCompatibleModel } from '../agent/model/openAiCompatible';
import { int, required, str, UsageError, type Parsed } from './args';

/** The valued flags of every command that appends to a session with a model (run, compact). */
export const MODEL_FLAGS = ['session', 'base-url', 'model', 'api-key-env', 'context-window'];

const DEFAULT_CONTEXT_WINDOW = 32_768;
const MIN_CONTEXT_WINDOW = 1_024;
const MAX_OUTPUT = 4_096;
/** What a shell reports for a process ended by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;

/** The variable the API key is read from; commands the agent runs never see it. */
export const apiKeyVarOf = (p: Parsed): string => str(p, 'api-key-env') ?? 'OPENAI_API_KEY';

/**
 * The model the flags name. The key comes from the environment variable `--api-key-env` names, so
 * it never sits in the shell history or the process list; empty is fine for local servers.
 */
export function modelFromFlags(p: Parsed, env: NodeJS.ProcessEnv = process.env): OpenAiCompatibleModel {
  const baseUrl = checkBaseUrl(required(p, 'base-url'));
  if (!baseUrl.ok) throw new UsageError(`--base-url: ${baseUrl.reason}`);
  const contextWindow = int(p, 'context-window') ?? DEFAULT_CONTEXT_WINDOW;
  if (contextWindow < MIN_CONTEXT_WINDOW) throw new UsageError(`--context-window must be at least ${MIN_CONTEXT_WINDOW}`);
  const model = required(p, 'model');
  const keyVar = apiKeyVarOf(p);
  // A quarter of a small window, so the prompt keeps most of it.
  const maxOutput = Math.min(MAX_OUTPUT, Math.floor(contextWindow / 4));
  // Own variables only: `--api-key-env constructor` names no variable, not Object's constructor.
  const apiKey = (Object.hasOwn(env, keyVar) ? env[keyVar] : undefined) ?? '';
  return new OpenAiCompatibleModel({ baseURL: baseUrl.url, apiKey, model, contextWindow, maxOutput });
}

/**
 * Runs `fn` with a signal that SIGINT (Ctrl+C) aborts, so what was cancelled lands on the tape
 * before the caller closes it; a second Ctrl+C, once the handler is gone, ends the process at once.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}
