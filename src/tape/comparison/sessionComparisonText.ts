import { oneLine } from '../oneLine';
import { LINE_MAX, type ComparedItem, type SessionComparison, type SideTotals, type TurnSide } from './sessionComparison';

function pinLine(item: Extract<ComparedItem, { kind: 'compaction_pin' }>): string {
  const what = [
    ...(item.entryIds.length === 0 ? [] : [`${item.entryIds.length === 1 ? 'entry' : 'entries'} ${item.entryIds.join(', ')}`]),
    ...(item.facts.length === 0 ? [] : [`${item.facts.length} ${item.facts.length === 1 ? 'fact' : 'facts'}`]),
  ].join(' and ');
  const facts = item.facts.length === 0 ? '' : `: ${oneLine(item.facts.join('; '), LINE_MAX)}`;
  return `#${item.entryId} pinned ${what} to compaction #${item.anchorEntryId}${facts}`;
}

const tokens = (t: { tokens: SideTotals['tokens'] }): string => `${t.tokens.inputTokens} in, ${t.tokens.outputTokens} out, ${t.tokens.cachedTokens} cached`;

function itemLine(item: ComparedItem): string {
  switch (item.kind) {
    case 'message':
      return `#${item.entryId} ${item.role}${item.status === 'sent' ? '' : ` (${item.status})`}: ${item.firstLine}`;
    case 'tool_call':
      return `#${item.entryId} call ${item.name} ${item.input}`;
    case 'tool_result':
      return `#${item.entryId} result ${item.name ?? '?'} ${item.status}`;
    case 'compaction_pin':
      return pinLine(item);
    case 'compaction_summary_edit':
      return `#${item.entryId} edited the summary of compaction #${item.anchorEntryId}: ${item.firstLine}`;
    case 'compaction_undo':
      return `#${item.entryId} undid compaction #${item.anchorEntryId}${item.reason === null ? '' : `: ${item.reason}`}`;
  }
}

/** What a side's turn starts at: its turn id, or the user message a session without turns is cut at. */
function startLabel(turn: TurnSide | null): string {
  if (turn === null) return '-';
  return turn.startsAt === 'user_message' ? `user message #${turn.fromEntryId}` : (turn.turnId ?? '?');
}

function turnBlock(label: string, turn: TurnSide | null): string[] {
  if (turn === null) return [`  ${label}: (nothing)`];
  const files = turn.files === null ? '' : `, ${turn.files.length + turn.filesOmitted} files changed`;
  return [
    `  ${label}: #${turn.fromEntryId}-#${turn.toEntryId}, ${turn.requests} requests, ${tokens(turn)} tokens, ${turn.toolCalls} tool calls${files}`,
    ...turn.items.map((item) => `    ${itemLine(item)}`),
    ...(turn.files ?? []).map((f) => `    file ${f.change} ${f.path}${f.added === null ? '' : ` +${f.added} -${f.removed ?? 0}`}`),
  ];
}

const totalsLine = (label: string, sessionId: string, t: SideTotals): string =>
  `${label} ${sessionId}: ${t.entries} entries, ${t.requests} requests, ${tokens(t)} tokens, ${t.toolCalls} tool calls, ${t.filesChanged.length} files changed`;

/**
 * compareSessions' result as plain text, turn by turn: what `agent-tape diff` prints and what the
 * extension's "Compare With…" document shows, so both read the same.
 */
export function sessionComparisonText(a: string, b: string, result: SessionComparison): string {
  const n = result.sharedPrefix;
  const out = [
    n === 0 ? 'shared prefix: none (the sessions share no entry)' : `shared prefix: ${n} entries (A and B are the same up to entry ${n})`,
    `A ${a} at #${result.a.headEntryId}, B ${b} at #${result.b.headEntryId}`,
  ];
  let turn = 0;
  for (const row of result.turns) {
    const leading = (row.a?.startsAt ?? null) === null && (row.b?.startsAt ?? null) === null;
    out.push(leading ? `before any turn` : `turn ${++turn} (A ${startLabel(row.a)}, B ${startLabel(row.b)})`);
    out.push(...turnBlock('A', row.a), ...turnBlock('B', row.b));
  }
  out.push(totalsLine('total A', a, result.totals.a), totalsLine('total B', b, result.totals.b));
  return `${out.join('\n')}\n`;
}
