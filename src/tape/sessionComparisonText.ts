import type { ComparedItem, SessionComparison, SideTotals, TurnSide } from './sessionComparison';

const tokens = (t: { tokens: SideTotals['tokens'] }): string => `${t.tokens.inputTokens} in, ${t.tokens.outputTokens} out, ${t.tokens.cachedTokens} cached`;

function itemLine(item: ComparedItem): string {
  switch (item.kind) {
    case 'message':
      return `#${item.entryId} ${item.role}${item.status === 'sent' ? '' : ` (${item.status})`}: ${item.firstLine}`;
    case 'tool_call':
      return `#${item.entryId} call ${item.name} ${item.input}`;
    case 'tool_result':
      return `#${item.entryId} result ${item.name ?? '?'} ${item.status}`;
  }
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
  const out = [`shared prefix: ${n} entries (A and B are the same up to entry ${n})`, `A ${a} at #${result.a.headEntryId}, B ${b} at #${result.b.headEntryId}`];
  let turn = 0;
  for (const row of result.turns) {
    const id = row.a?.turnId ?? row.b?.turnId ?? null;
    out.push(id === null ? `before any turn` : `turn ${++turn} (A ${row.a?.turnId ?? '-'}, B ${row.b?.turnId ?? '-'})`);
    out.push(...turnBlock('A', row.a), ...turnBlock('B', row.b));
  }
  out.push(totalsLine('total A', a, result.totals.a), totalsLine('total B', b, result.totals.b));
  return `${out.join('\n')}\n`;
}
