import type { ModelEvent, ModelPort, ModelRequest, StopReason, Usage } from './modelPort';
import { ProviderError, type FailureClass } from './providerError';

export interface RetryPolicy {
  /** Physical attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Share of the backoff that is randomised (0..1), so clients that failed together spread out. */
  jitter: number;
  /** A server asking to wait longer than this is not waited for: the failure goes to the user. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  jitter: 0.5,
  maxRetryAfterMs: 60_000,
};

export interface RetryDecision {
  retry: boolean;
  delayMs: number;
}

/** Whether attempt number `attempt` (from 1), which failed with `error`, is followed by another. */
export function decideRetry(policy: RetryPolicy, attempt: number, error: ProviderError, random: () => number = Math.random): RetryDecision {
  if (!error.transient || attempt >= policy.maxAttempts) return { retry: false, delayMs: 0 };
  if (error.retryAfterMs !== undefined) {
    return error.retryAfterMs <= policy.maxRetryAfterMs ? { retry: true, delayMs: error.retryAfterMs } : { retry: false, delayMs: 0 };
  }
  const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return { retry: true, delayMs: Math.round(backoff * (1 - policy.jitter * random())) };
}

/** One physical attempt, as the loop appends it in a `provider/attempt` event (SPEC 2.6). */
export interface AttemptRecord {
  attempt: number;
  status: 'ok' | 'error';
  failureClass?: FailureClass;
  /** `none` after a success; `give_up` also when the failure came mid-stream and cannot be retried. */
  retryDecision: 'none' | 'retry' | 'give_up';
  delayMs?: number;
  durationMs: number;
  usage?: Usage;
  stopReason?: StopReason;
}

export interface RetryOptions {
  policy?: RetryPolicy;
  onAttempt: (record: AttemptRecord) => void;
  random?: () => number;
  now?: () => number;
}

/**
 * Streams `request` from `port`, retrying transient failures by the policy. Only a failure before
 * the first event is retried: once the caller has seen part of an answer, a new attempt would
 * repeat it, so the failure is thrown. A cancellation (also during a backoff wait) ends the stream
 * with the stop reason `cancelled`.
 */
export async function* streamWithRetry(port: ModelPort, request: ModelRequest, signal: AbortSignal, options: RetryOptions): AsyncGenerator<ModelEvent> {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const now = options.now ?? Date.now;
  for (let attempt = 1; ; attempt++) {
    const started = now();
    let streamed = false;
    let usage: Usage | undefined;
    let stopReason: StopReason | undefined;
    try {
      for await (const event of port.stream(request, signal)) {
        if (event.type === 'usage') usage = event.usage;
        if (event.type === 'stop') stopReason = event.reason;
        streamed = true;
        yield event;
      }
    } catch (thrown) {
      const error = thrown instanceof ProviderError ? thrown : new ProviderError('bad_response', { detail: String(thrown) });
      // The caller's cancel wins over whatever failure the abort caused on the way out.
      const cancelled = signal.aborted || error.failureClass === 'cancelled';
      const decision = streamed || cancelled ? { retry: false, delayMs: 0 } : decideRetry(policy, attempt, error, options.random);
      options.onAttempt({
        attempt,
        status: 'error',
        failureClass: cancelled ? 'cancelled' : error.failureClass,
        retryDecision: decision.retry ? 'retry' : 'give_up',
        ...(decision.retry ? { delayMs: decision.delayMs } : {}),
        durationMs: now() - started,
        ...(usage ? { usage } : {}),
        ...(cancelled ? { stopReason: 'cancelled' as const } : stopReason ? { stopReason } : {}),
      });
      if (cancelled) {
        yield { type: 'stop', reason: 'cancelled' };
        return;
      }
      if (!decision.retry) throw error;
      if (await sleep(decision.delayMs, signal)) continue;
      yield { type: 'stop', reason: 'cancelled' };
      return;
    }
    const cancelled = stopReason === 'cancelled';
    options.onAttempt({
      attempt,
      status: cancelled ? 'error' : 'ok',
      ...(cancelled ? { failureClass: 'cancelled' as const } : {}),
      retryDecision: cancelled ? 'give_up' : 'none',
      durationMs: now() - started,
      ...(usage ? { usage } : {}),
      ...(stopReason ? { stopReason } : {}),
    });
    return;
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (completed: boolean) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve(completed);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
