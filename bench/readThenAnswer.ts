import type { ModelEvent, ModelPort, ModelRequest } from '../src/agent/model/modelPort';
import { ScriptedModel, type ScriptedStep } from '../src/agent/model/scriptedModel';
import { proseOf } from './common';

/** The answer's length in tokens. */
export const TOKENS = 2_000;

// About four characters a token, the estimator's rate.
const ANSWER = proseOf(7, TOKENS * 4);
const script = (): (readonly ScriptedStep[])[] => [
  [{ text: 'Let me read it.' }, { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } }],
  Array.from({ length: TOKENS }, (_, i) => ({ text: ANSWER.slice(i * 4, i * 4 + 4) })),
];

/**
 * The benches' turn: a fresh scripted model that reads notes.md, then streams a 2,000-token
 * answer, its text deltas paced `delayMs` apart like a server's.
 */
export function readThenAnswer(delayMs: number): ModelPort {
  const inner = new ScriptedModel(script());
  return {
    info: inner.info,
    countTokens: (input) => inner.countTokens(input),
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncGenerator<ModelEvent> {
      for await (const event of inner.stream(request, signal)) {
        if (delayMs > 0 && event.type === 'text') await new Promise((r) => setTimeout(r, delayMs));
        yield event;
      }
    },
  };
}
