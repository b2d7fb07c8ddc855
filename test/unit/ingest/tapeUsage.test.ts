import * as assert from 'assert';
import { ANTHROPIC_BASIS, OPENAI_BASIS, tapeUsage } from '../../../src/ingest/tapeUsage';

describe('token figures that add like with like across agents (tapeUsage)', () => {
  it("adds back what an agent's input and output leave out, and keeps the agent's own figures", () => {
    // Anthropic's input_tokens leaves cache reads and writes out.
    assert.deepStrictEqual(tapeUsage({ input: 10, output: 5, cacheRead: 900, cacheWrite: 40 }, ANTHROPIC_BASIS), {
      inputTokens: 950,
      outputTokens: 5,
      cachedTokens: 900,
      cacheCreationTokens: 40,
      reasoningTokens: 0,
      inputIncludesCached: true,
      reported: { input: 10, output: 5, cacheRead: 900, cacheWrite: 40 },
    });
    // OpenAI's prompt tokens count the cache and completion tokens the reasoning: nothing is added.
    const openai = tapeUsage({ input: 1000, output: 300, cacheRead: 600, reasoning: 200 }, OPENAI_BASIS);
    assert.deepStrictEqual([openai.inputTokens, openai.outputTokens, openai.cachedTokens, openai.reasoningTokens], [1000, 300, 600, 200]);
    // opencode and Gemini write output without the reasoning.
    const apart = tapeUsage({ input: 100, output: 30, reasoning: 70 }, { ...OPENAI_BASIS, outputHasReasoning: false });
    assert.deepStrictEqual([apart.outputTokens, apart.reasoningTokens], [100, 70]);
  });

  it('takes a figure that is not a non-negative number as 0, and keeps only numbers as reported', () => {
    const u = tapeUsage({ input: -5, output: Number.NaN, cacheRead: Infinity }, ANTHROPIC_BASIS);
    assert.deepStrictEqual([u.inputTokens, u.outputTokens, u.cachedTokens], [0, 0, 0]);
    assert.deepStrictEqual(u.reported, { input: -5 });
  });
});
