import type { Judgement } from '../../rerun/agreement';
import type { FinishKind, TokenCounts, ToolCallFacts } from '../../tape/evaluation/evaluationEntries';

/**
 * The two sides of a re-run as plain text documents, recorded and re-run, laid out line for line
 * alike so VS Code's diff editor lines them up: the same headings in the same order, one tool call
 * a line. No vscode here: the text is checked in Node.
 */

export interface ResponseFacts {
  /** `ok`, `failed` or `cancelled` for a re-run; `recorded` for the tape's. */
  status: string;
  finish: FinishKind | null;
  text: string;
  toolCalls: readonly ToolCallFacts[];
  tokens: TokenCounts | null;
  latencyMs: number | null;
  model: string;
  /** What else to say (a failure's message, the rebuild's notes). */
  notes?: readonly string[];
}

const callText = (c: ToolCallFacts): string => `${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`;
const tokensText = (t: TokenCounts | null): string => (t === null ? 'not recorded' : `${t.input} in, ${t.output} out, ${t.cached} cached`);
const finishText = (f: FinishKind | null): string => (f === null ? 'no answer' : f === 'tool_calls' ? 'tool calls' : 'text');

export function responseDocument(title: string, r: ResponseFacts): string {
  const lines = [
    `# ${title}`,
    `model: ${r.model}`,
    `status: ${r.status}`,
    `finish: ${finishText(r.finish)}`,
    `tokens: ${tokensText(r.tokens)}`,
    `latency: ${r.latencyMs === null ? 'not recorded' : `${r.latencyMs} ms`}`,
    '',
    `## Tool calls (${r.toolCalls.length})`,
    ...r.toolCalls.map(callText),
    '',
    '## Text',
    r.text,
  ];
  if (r.notes !== undefined && r.notes.length > 0) lines.push('', '## Notes', ...r.notes);
  return `${lines.join('\n')}\n`;
}

const signed = (n: number): string => (n > 0 ? `+${n}` : String(n));

/** What differs, in a few words: the verdict and why, the token and latency deltas (re-run minus recorded). */
export function differenceSummary(judgement: Judgement | null, recorded: ResponseFacts, rerun: ResponseFacts): string {
  const parts: string[] = [];
  if (judgement === null) parts.push(`the re-run ${rerun.status === 'cancelled' ? 'was cancelled' : 'failed'}`);
  else parts.push(judgement.status === 'agree' ? 'agrees with the recording' : `diverges: ${judgement.reason ?? ''}`);
  if (judgement !== null && rerun.finish === 'text') parts.push(`text similarity ${judgement.textSimilarity.toFixed(2)}`);
  if (recorded.tokens !== null && rerun.tokens !== null)
    parts.push(`tokens ${signed(rerun.tokens.input - recorded.tokens.input)} in, ${signed(rerun.tokens.output - recorded.tokens.output)} out`);
  if (recorded.latencyMs !== null && rerun.latencyMs !== null) parts.push(`latency ${signed(rerun.latencyMs - recorded.latencyMs)} ms`);
  return parts.join('; ');
}
