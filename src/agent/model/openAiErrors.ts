import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import { ProviderError, classifyStatus } from './providerError';
import { retryAfterMs } from './retryAfter';

/** Why our own controller aborted the request, when it did: the SDK reports both as an abort. */
export type AbortCause = 'cancelled' | 'timeout' | undefined;

/** Maps whatever the SDK or the network threw to the classification, never keeping the key. */
export function fromOpenAiError(error: unknown, abortCause: AbortCause, apiKey: string, timeoutMs: number): ProviderError {
  const secrets = [apiKey];
  if (abortCause === 'cancelled') return new ProviderError('cancelled');
  if (abortCause === 'timeout' || error instanceof APIConnectionTimeoutError) return timeoutError(timeoutMs);
  if (error instanceof APIUserAbortError) return new ProviderError('cancelled');
  if (error instanceof APIConnectionError) return new ProviderError('unreachable', { detail: causeChain(error.cause ?? error), secrets });
  if (error instanceof APIError && error.status !== undefined) {
    const detail = serverMessage(error);
    return new ProviderError(classifyStatus(error.status, detail, error.code), {
      status: error.status,
      detail,
      retryAfterMs: retryAfterMs(error.headers),
      secrets,
    });
  }
  // Anything else broke while reading the stream: the connection dropped or a chunk was garbage.
  return new ProviderError('bad_response', { detail: causeChain(error), secrets });
}

/** The server's own message: the SDK's message prefixes the status, which the error already shows. */
function serverMessage(error: APIError): string {
  const body = error.error as { message?: unknown } | undefined;
  return typeof body?.message === 'string' ? body.message : error.message.replace(/^\d{3}\s*/, '');
}

/** Node's fetch hides the useful part (ECONNREFUSED, ENOTFOUND, "other side closed") in causes. */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    parts.push(typeof code === 'string' && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
  }
  return parts.length > 0 ? parts.join(': ') : String(error);
}

export const timeoutError = (timeoutMs: number): ProviderError => new ProviderError('timeout', { detail: `no data for ${timeoutMs} ms` });
