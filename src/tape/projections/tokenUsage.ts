import { ATTEMPT_EVENT } from '../entryNames';
import type { Entry } from '../entry';
import type { Projection } from './projection';
import { wholeInputOf } from '../usage/usageFigures';

export interface TokenUsage {
  readonly attempts: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedTokens: number;
}

const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

export const tokenUsageProjection: Projection<TokenUsage> = {
  key: 'tokenUsage',
  // 2: input counts the cache however an attempt stored it (wholeInputOf).
  version: 2,
  init: () => ({ attempts: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0 }),
  apply(state: TokenUsage, entry: Entry): TokenUsage {
    if (entry.kind !== 'event' || entry.name !== ATTEMPT_EVENT) return state;
    const data = entry.payload.data as { usage?: Record<string, unknown> } | null | undefined;
    const usage = data?.usage ?? {};
    return {
      attempts: state.attempts + 1,
      inputTokens: state.inputTokens + wholeInputOf(usage),
      outputTokens: state.outputTokens + count(usage.outputTokens),
      cachedTokens: state.cachedTokens + count(usage.cachedTokens),
    };
  },
};
