export type FailureClass =
  | 'unreachable'
  | 'auth'
  | 'model_missing'
  | 'context_too_long'
  | 'rate_limit'
  | 'server'
  | 'timeout'
  | 'cancelled'
  | 'bad_response'
  /** Not the server's answer: the user did not allow the API key to go to this address. */
  | 'key_withheld';

/** Whether trying the same request again can succeed without anyone changing anything. */
const TRANSIENT: Record<FailureClass, boolean> = {
  // A local server that is starting, or a network blip; a wrong address fails again quickly.
  unreachable: true,
  auth: false,
  model_missing: false,
  context_too_long: false,
  rate_limit: true,
  server: true,
  timeout: true,
  cancelled: false,
  bad_response: true,
  // Asking again would only ask the user again, once per retry.
  key_withheld: false,
};

const HEADLINE: Record<FailureClass, string> = {
  unreachable: 'The model server cannot be reached',
  auth: 'The model server refused the credentials',
  model_missing: 'The model server does not know this model',
  context_too_long: "The request is longer than the model's context window",
  rate_limit: 'The model server is rate limiting requests',
  server: 'The model server failed',
  timeout: 'The model server did not answer in time',
  cancelled: 'The request was cancelled',
  bad_response: 'The model server sent a response that could not be used',
  key_withheld: 'Nothing was sent to the model server',
};

export interface ProviderErrorInit {
  status?: number;
  /** The server's own words or the network error; secrets are removed before it is kept. */
  detail?: string;
  retryAfterMs?: number;
  /** Secrets that must never reach the message (the API key). */
  secrets?: readonly string[];
}

export class ProviderError extends Error {
  readonly failureClass: FailureClass;
  readonly transient: boolean;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(failureClass: FailureClass, init: ProviderErrorInit = {}) {
    const detail = init.detail === undefined ? undefined : redact(init.detail, init.secrets ?? []);
    const status = init.status === undefined ? '' : ` (HTTP ${init.status})`;
    super(`${HEADLINE[failureClass]}${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'ProviderError';
    this.failureClass = failureClass;
    // A redirect (never followed) or any other 4xx says the request itself is wrong: sending it again gets the same answer.
    const refused = init.status !== undefined && init.status >= 300 && init.status < 500 && init.status !== 408 && init.status !== 429;
    this.transient = TRANSIENT[failureClass] && !refused;
    if (init.status !== undefined) this.status = init.status;
    if (init.retryAfterMs !== undefined) this.retryAfterMs = init.retryAfterMs;
  }
}

const CONTEXT_LENGTH = /context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long|exceeds? the (model'?s? )?(maximum|max)/i;
const CONTEXT_CODES = new Set(['context_length_exceeded', 'string_above_max_length']);

/** Classifies an HTTP error status (with the server's message and error code, when it sent them). */
export function classifyStatus(status: number, message = '', code?: string | null): FailureClass {
  if (status === 401 || status === 403) return 'auth';
  if (status === 404) return 'model_missing';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'server';
  if ((status === 400 || status === 413) && ((code && CONTEXT_CODES.has(code)) || CONTEXT_LENGTH.test(message))) return 'context_too_long';
  return 'bad_response';
}

/** Replaces every secret in a text shown to users or logged. */
function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('[redacted]');
  return out;
}
