import * as http from 'http';
import * as https from 'https';
import { errorMessage } from '../tape/errorMessage';
import { shownUrl, type OtlpEndpoint } from './otlpEndpoint';

/**
 * One OTLP/HTTP export request and what its answer means, as the OTLP specification sorts them:
 * 2xx sent; 429, 502, 503 and 504 (and no answer at all: refused, reset, timed out) worth
 * another try, after the server's Retry-After when it gives one; anything else (400, 401, 500, a
 * redirect) final. A redirect is not followed: the headers carry the collector's credentials.
 */

export type PostOutcome = { kind: 'sent' } | { kind: 'retry'; reason: string; afterMs: number | null } | { kind: 'failed'; reason: string };

const RETRYABLE = new Set([429, 502, 503, 504]);
/** A Retry-After longer than this is a server asking us to stop; we try again sooner and let the backoff decide. */
const MAX_RETRY_AFTER_MS = 60_000;
/** What is read of an answer's body: OTLP's answers are a few bytes; an error page is not read whole. */
const MAX_ANSWER_BYTES = 64 * 1024;

export const CONTENT_TYPE = { 'http/json': 'application/json', 'http/protobuf': 'application/x-protobuf' } as const;

function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined) return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

export function postOtlp(endpoint: OtlpEndpoint, body: Uint8Array, signal?: AbortSignal): Promise<PostOutcome> {
  const where = shownUrl(endpoint.url);
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: PostOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(outcome);
    };
    const url = new URL(endpoint.url);
    const request = (url.protocol === 'https:' ? https : http).request(url, {
      method: 'POST',
      headers: { ...endpoint.headers, 'content-type': CONTENT_TYPE[endpoint.protocol], 'content-length': body.byteLength },
    });
    const timer = setTimeout(() => {
      request.destroy();
      done({ kind: 'retry', reason: `no answer from ${where} within ${endpoint.timeoutMs} ms`, afterMs: null });
    }, endpoint.timeoutMs);
    const onAbort = (): void => {
      request.destroy();
      done({ kind: 'failed', reason: `the request to ${where} was cancelled` });
    };
    signal?.addEventListener('abort', onAbort);
    request.on('error', (e) => done({ kind: 'retry', reason: `${where}: ${errorMessage(e)}`, afterMs: null }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) response.destroy();
      });
      const finish = (): void => {
        if (status >= 200 && status < 300) done({ kind: 'sent' });
        else if (RETRYABLE.has(status))
          done({ kind: 'retry', reason: `HTTP ${status} from ${where}`, afterMs: retryAfterMs(response.headers['retry-after'], Date.now()) });
        else if (status >= 300 && status < 400)
          done({ kind: 'failed', reason: `HTTP ${status} from ${where}: a redirect, not followed (the request carries the collector's headers)` });
        else done({ kind: 'failed', reason: `HTTP ${status} from ${where}` });
      };
      response.on('end', finish);
      response.on('close', finish);
      response.on('error', finish);
    });
    if (signal?.aborted === true) onAbort();
    else request.end(body);
  });
}
