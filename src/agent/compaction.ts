import * as z from 'zod';
import type { ContextMessage } from '../tape/context';
import type { ModelInfo, ModelRequest } from './model/modelPort';

/**
 * Compaction (SPEC 2.5): the summary request and how its answer is read; the anchor it becomes is
 * the tape's (src/tape/compactionAnchor.ts). Pure: the compactor does the I/O.
 */

/** The summary the model is asked for; each part may be missing from a sloppy answer. */
export interface StructuredSummary {
  goal: string;
  decisions: string[];
  filesTouched: string[];
  commands: string[];
  errors: string[];
  openWork: string[];
}

/** A JSON answer that fits the shape, or the model's plain text when it wrote prose instead. */
export type ParsedSummary = { kind: 'structured'; summary: StructuredSummary } | { kind: 'text'; text: string };

// The summary is short by design; a model with a smaller output limit gets its own.
const SUMMARY_MAX_OUTPUT = 2048;
// One huge tool output must not crowd the rest of the conversation out of the summary request.
const ITEM_MAX_CHARS = 4000;

// Summaries keep decisions far better than paths and commands (issue 20): they are asked for by name.
const COMPACTION_INSTRUCTIONS = `You compact a coding agent's conversation so that the work can go on from your summary alone; the conversation itself will no longer be shown.
Answer with one JSON object and nothing else:
{"goal": "what the user wants, in one or two sentences",
 "decisions": ["decisions taken and facts learned that later work depends on"],
 "filesTouched": ["every path read, created or edited, written out in full, each with a few words on why"],
 "commands": ["every command run, written exactly as it was run, with its outcome"],
 "errors": ["every error met, its message quoted, and whether it is fixed"],
 "openWork": ["what is still to do, next step first"]}
Be specific: keep names, full paths, exact commands, error messages and numbers. Leave out greetings and dead ends that no longer matter. An earlier checkpoint summary in the conversation is part of what you summarise.`;

function clip(text: string): string {
  if (text.length <= ITEM_MAX_CHARS) return text;
  const half = ITEM_MAX_CHARS / 2;
  return `${text.slice(0, half)}\n[… ${text.length - ITEM_MAX_CHARS} characters left out …]\n${text.slice(-half)}`;
}

function transcriptLine(m: Pick<ContextMessage, 'role' | 'content' | 'toolName'>): string {
  const who = m.role === 'tool' ? `tool result ${m.toolName ?? ''}`.trim() : m.toolName !== undefined ? `assistant calls ${m.toolName}` : m.role;
  return `[${who}]\n${clip(m.content)}`;
}

/**
 * The summary request: the conversation as one transcript, not as chat turns, so tool messages
 * need no tool definitions and the agent's own system prompt does not compete with the
 * instructions. The agent's system prompt is left out: it is sent again with every request.
 */
export function compactionRequest(messages: readonly Pick<ContextMessage, 'role' | 'content' | 'toolName'>[], model: ModelInfo): ModelRequest {
  const transcript = messages
    .filter((m) => m.role !== 'system')
    .map(transcriptLine)
    .join('\n\n');
  return {
    messages: [
      { role: 'system', content: COMPACTION_INSTRUCTIONS },
      { role: 'user', content: `The conversation to summarise:\n\n${transcript}\n\nNow write the JSON summary.` },
    ],
    tools: [],
    maxOutput: Math.min(model.maxOutput, SUMMARY_MAX_OUTPUT),
  };
}

// Models write a list as one string, or a string as a list, often enough to accept both.
const text = z.union([z.string(), z.array(z.string()).transform((a) => a.join('; '))]);
const list = z.union([z.array(z.union([z.string(), z.number()]).transform(String)), z.string().transform((s) => (s.trim() === '' ? [] : [s]))]);
const summaryShape = z.looseObject({
  goal: text.optional(),
  decisions: list.optional(),
  filesTouched: list.optional(),
  files_touched: list.optional(),
  commands: list.optional(),
  errors: list.optional(),
  openWork: list.optional(),
  open_work: list.optional(),
});

const FENCED = /```(?:json)?\s*\n?([\s\S]*?)```/i;

function jsonCandidates(answer: string): string[] {
  const out = [answer];
  const fenced = FENCED.exec(answer);
  if (fenced) out.push(fenced[1]);
  const first = answer.indexOf('{');
  const last = answer.lastIndexOf('}');
  if (first >= 0 && last > first) out.push(answer.slice(first, last + 1));
  return out;
}

/** The model's answer as a summary: JSON (bare, fenced, or inside prose), else its text; null when it is blank. */
export function parseCompactionAnswer(answer: string): ParsedSummary | null {
  const trimmed = answer.trim();
  if (trimmed === '') return null;
  for (const candidate of jsonCandidates(trimmed)) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    const r = summaryShape.safeParse(value);
    if (!r.success) continue;
    const s: StructuredSummary = {
      goal: (r.data.goal ?? '').trim(),
      decisions: r.data.decisions ?? [],
      filesTouched: r.data.filesTouched ?? r.data.files_touched ?? [],
      commands: r.data.commands ?? [],
      errors: r.data.errors ?? [],
      openWork: r.data.openWork ?? r.data.open_work ?? [],
    };
    if (s.goal !== '' || s.decisions.length + s.filesTouched.length + s.commands.length + s.errors.length + s.openWork.length > 0)
      return { kind: 'structured', summary: s };
  }
  return { kind: 'text', text: trimmed };
}

/** The summary as the checkpoint text the next requests carry. */
export function renderSummary(parsed: ParsedSummary): string {
  if (parsed.kind === 'text') return parsed.text;
  const { goal, decisions, filesTouched, commands, errors, openWork } = parsed.summary;
  const section = (title: string, items: string[]): string => `${title}:${items.length === 0 ? ' (none)' : items.map((i) => `\n- ${i}`).join('')}`;
  // Commands and errors are left out when there are none: a model that omits them may have run some.
  return [
    `Goal: ${goal || '(not stated)'}`,
    section('Decisions', decisions),
    section('Files touched', filesTouched),
    ...(commands.length === 0 ? [] : [section('Commands run', commands)]),
    ...(errors.length === 0 ? [] : [section('Errors', errors)]),
    section('Open work', openWork),
  ].join('\n');
}

/** Whether a prompt this large should be compacted first (the default share is 80% of the input budget). */
export function shouldAutoCompact(estimatedPromptTokens: number, inputBudget: number, share = 0.8): boolean {
  if (!(share > 0 && share <= 1)) throw new RangeError(`the compaction share must be in (0, 1], got ${share}`);
  return inputBudget > 0 && estimatedPromptTokens >= inputBudget * share;
}
