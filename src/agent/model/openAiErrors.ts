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

/**
 * A redirect the client was told not to follow (`redirect: 'manual'`), as an error naming where it
 * points, or null for any other error. Followed, a 307 or 308 would post the whole conversation to
 * the new address: to another origin, a server the user never chose; to the same one, a path the
 * base URL does not name. Neither is followed; a wrong base URL is fixed where it is set.
 */
export function redirectRefused(error: unknown, baseURL: string, apiKey: string): ProviderError | null {
  if (!(error instanceof APIError) || error.status === undefined || error.status < 300 || error.status >= 400) return null;
  const location = error.headers?.get('location');
  let where = 'without saying where';
  if (location) {
    const from = new URL(baseURL);
    const to = URL.canParse(location, from.href) ? new URL(location, from) : null;
    // The query is left out: a redirect may carry a token there.
    where =
      to === null ? 'to an address that is not a URL' : to.origin === from.origin ? `to ${to.pathname} on the same server` : `to another origin, ${to.origin}`;
  }
  return new ProviderError('bad_response', {
    status: error.status,
    detail: `it redirects ${where}; Agent Tape does not follow a model server's redirects, so the conversation is not sent there: set the base URL to the address you mean`,
    secrets: [apiKey],
  });
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
