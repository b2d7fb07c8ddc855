import type { JsonObject } from '../tape/entry';

/** An agent's token figures as it wrote them; a figure it does not write is left out. */
export interface ReportedUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  reasoning?: number;
}

/** What an agent's own `input` and `output` figures already count: each agent writes its provider's convention. */
export interface UsageBasis {
  inputHasCacheRead: boolean;
  inputHasCacheWrite: boolean;
  outputHasReasoning: boolean;
}

/** Anthropic's API (Claude Code, Cline on Claude): input is only what was neither read from nor written to the cache. */
export const ANTHROPIC_BASIS: UsageBasis = { inputHasCacheRead: false, inputHasCacheWrite: false, outputHasReasoning: true };
/** OpenAI's APIs (Codex, Copilot): prompt tokens count the cached ones, completion tokens the reasoning ones. */
export const OPENAI_BASIS: UsageBasis = { inputHasCacheRead: true, inputHasCacheWrite: true, outputHasReasoning: true };

const count = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);

/**
 * A provider/attempt's `usage` on the tape, the same sums for every agent so that totals over a
 * Claude Code, an opencode and a Codex session add like with like: `inputTokens` is every input
 * token of the request (cache reads and writes included), `cachedTokens` and `cacheCreationTokens`
 * the parts read from and written to the cache, `outputTokens` every output token (reasoning
 * included), `reasoningTokens` the reasoning part. `reported` keeps the agent's own figures as it
 * wrote them.
 */
export function tapeUsage(reported: ReportedUsage, basis: UsageBasis): JsonObject {
  const cacheRead = count(reported.cacheRead);
  const cacheWrite = count(reported.cacheWrite);
  const reasoning = count(reported.reasoning);
  const input = count(reported.input) + (basis.inputHasCacheRead ? 0 : cacheRead) + (basis.inputHasCacheWrite ? 0 : cacheWrite);
  const output = count(reported.output) + (basis.outputHasReasoning ? 0 : reasoning);
  const kept: JsonObject = {};
  for (const [k, v] of Object.entries(reported)) if (typeof v === 'number' && Number.isFinite(v)) kept[k] = v;
  return {
    inputTokens: input,
    outputTokens: output,
    cachedTokens: cacheRead,
    cacheCreationTokens: cacheWrite,
    reasoningTokens: reasoning,
    // Said outright, so readers do not take these for figures stored before with the cache apart (usageStats inputLeavesCacheOut).
    inputIncludesCached: true,
    reported: kept,
  };
}
