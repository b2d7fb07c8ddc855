import { canonicalJson } from '../tape/canonicalJson';
import type { FinishKind, RecordedFacts, RequestStatus, ToolCallFacts } from '../tape/evaluation/evaluationEntries';
import { oneLine } from '../tape/oneLine';
import { sameToolCall } from '../tape/evaluation/rerunEntries';
import { textSimilarity } from './textSimilarity';

/**
 * The agreement rule of an evaluation: does a re-run's answer agree with the recorded one? A
 * model's sampling is not deterministic, so the rule asks whether the model would have done the
 * same next step, not whether it wrote the same bytes:
 * - a different finish kind (text vs tool calls, or a recorded request that has no answer) diverges;
 * - tool calls agree when they are the same number of calls with the same names in the same order
 *   and the same arguments as canonical JSON (keys sorted, so key order and spacing do not count;
 *   call ids are the model's own and are not compared); the text beside them is only reported;
 * - text answers agree when their similarity (textSimilarity.ts) is at least the threshold.
 */

export const DEFAULT_TEXT_THRESHOLD = 0.5;

/** Arguments shown in a reason are cut: the whole calls are in the result. */
const SHOWN_ARGUMENTS = 120;

export interface Judgement {
  status: Exclude<RequestStatus, 'failed'>;
  reason: string | null;
  finishEqual: boolean;
  toolNamesEqual: boolean;
  toolArgumentsEqual: boolean;
  textSimilarity: number;
}

/** Arguments as a reason shows them: canonical JSON, or the text itself when it is not a JSON value. */
function argumentsKey(args: unknown): string {
  try {
    return canonicalJson(args);
  } catch {
    return `raw:${String(args)}`;
  }
}

const finishWords = (f: FinishKind): string => (f === 'text' ? 'text' : 'tool calls');

export function judge(
  recorded: { facts: RecordedFacts; text: string },
  rerun: { finish: FinishKind; text: string; toolCalls: readonly ToolCallFacts[] },
  textThreshold: number,
): Judgement {
  const was = recorded.facts.toolCalls;
  const now = rerun.toolCalls;
  const toolNamesEqual = was.length === now.length && was.every((c, i) => c.name === now[i].name);
  // The same rule a continued re-run replays a recorded result by.
  const toolArgumentsEqual =
    toolNamesEqual && was.every((c, i) => sameToolCall({ name: c.name, input: c.arguments }, { name: now[i].name, input: now[i].arguments }));
  const similarity = textSimilarity(recorded.text, rerun.text);
  const finishEqual = recorded.facts.finish === rerun.finish;
  const verdict = (reason: string | null): Judgement => ({
    status: reason === null ? 'agree' : 'diverged',
    reason,
    finishEqual,
    toolNamesEqual,
    toolArgumentsEqual,
    textSimilarity: similarity,
  });
  if (recorded.facts.finish === null)
    return verdict(`finished with ${finishWords(rerun.finish)}; the recorded request has no answer (it failed or was cancelled)`);
  if (!finishEqual) return verdict(`finished with ${finishWords(rerun.finish)}, recorded ${finishWords(recorded.facts.finish)}`);
  if (rerun.finish === 'text') {
    return verdict(similarity >= textThreshold ? null : `text similarity ${similarity.toFixed(2)} is below ${textThreshold}`);
  }
  if (!toolNamesEqual) {
    const names = (calls: readonly ToolCallFacts[]) => calls.map((c) => c.name).join(', ');
    return verdict(`called ${names(now)}, recorded ${names(was)}`);
  }
  if (!toolArgumentsEqual) {
    const i = was.findIndex((c, k) => argumentsKey(c.arguments) !== argumentsKey(now[k].arguments));
    const shown = (c: ToolCallFacts) => oneLine(argumentsKey(c.arguments), SHOWN_ARGUMENTS);
    return verdict(`call ${i + 1} (${was[i].name}) has other arguments: ${shown(now[i])}, recorded ${shown(was[i])}`);
  }
  return verdict(null);
}
