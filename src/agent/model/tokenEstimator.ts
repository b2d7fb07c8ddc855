import { CHARS_PER_TOKEN } from '../../tape/projections/contextPressure';
import type { ModelMessage } from './modelPort';

/** Role markers and separators the chat template adds around each message. */
const PER_MESSAGE_OVERHEAD = 4;
/** A calibration outside this range says more about a broken server than about the text. */
const MIN_RATIO = 0.25;
const MAX_RATIO = 4;

/**
 * Estimates token counts where the server reports none, without downloading a tokenizer: a fixed
 * chars-per-token rate, scaled by the ratio between the last real count and the raw estimate for
 * the same text (so a model whose tokenizer is denser than the rate is corrected after one reply).
 */
export class TokenEstimator {
  private ratio = 1;

  count(input: string | readonly ModelMessage[]): number {
    return Math.ceil(rawEstimate(input) * this.ratio);
  }

  /** For output whose text was not kept, only its length. */
  countChars(chars: number): number {
    return Math.ceil((chars / CHARS_PER_TOKEN) * this.ratio);
  }

  /** Records a real count the server reported for `input`. */
  calibrate(input: string | readonly ModelMessage[], actualTokens: number): void {
    const raw = rawEstimate(input);
    if (raw <= 0 || !(actualTokens > 0)) return;
    this.ratio = Math.min(MAX_RATIO, Math.max(MIN_RATIO, actualTokens / raw));
  }
}

function rawEstimate(input: string | readonly ModelMessage[]): number {
  if (typeof input === 'string') return input.length / CHARS_PER_TOKEN;
  let tokens = 0;
  for (const m of input) tokens += PER_MESSAGE_OVERHEAD + (m.content.length + (m.toolName?.length ?? 0)) / CHARS_PER_TOKEN;
  return tokens;
}
