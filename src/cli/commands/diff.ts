import type { OpenTape } from '../../agent/session/openTape';
import { compareSessions, type ComparedItem, type ComparedSession, type SideTotals, type TurnSide } from '../../tape/sessionComparison';
import { parseArgs } from '../args';
import { json, type Io } from '../output';
import { requireSession } from './session';
import { withTape } from './withTape';

function sideOf(tape: OpenTape, sessionId: string): ComparedSession {
  requireSession(tape.store, sessionId);
  const session = tape.session(sessionId);
  return {
    sessionId,
    entries: session.entries(),
    view: session.view({ includePending: false }),
    origin: (entryId) => tape.reader.origin(sessionId, entryId),
  };
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
  }
}

function turnBlock(io: Io, label: string, turn: TurnSide | null): void {
  if (turn === null) {
    io.out(`  ${label}: (nothing)\n`);
    return;
  }
  const files = turn.files === null ? '' : `, ${turn.files.length + turn.filesOmitted} files changed`;
  io.out(`  ${label}: #${turn.fromEntryId}-#${turn.toEntryId}, ${turn.requests} requests, ${tokens(turn)} tokens, ${turn.toolCalls} tool calls${files}\n`);
  for (const item of turn.items) io.out(`    ${itemLine(item)}\n`);
  for (const f of turn.files ?? []) io.out(`    file ${f.change} ${f.path}${f.added === null ? '' : ` +${f.added} -${f.removed ?? 0}`}\n`);
}

const totalsLine = (label: string, sessionId: string, t: SideTotals): string =>
  `${label} ${sessionId}: ${t.entries} entries, ${t.requests} requests, ${tokens(t)} tokens, ${t.toolCalls} tool calls, ${t.filesChanged.length} files changed\n`;

/** `agent-tape diff <tape> A B [--json]`: read-only; the JSON is compareSessions' result (src/tape/sessionComparison.ts). */
export function diffCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { switches: ['json'], positional: ['tape', 'A', 'B'] });
  const [file, a, b] = p.positional;
  return withTape(file, (tape) => {
    const result = compareSessions(sideOf(tape, a), sideOf(tape, b));
    if (p.flags.has('json')) {
      json(io, result);
      return 0;
    }
    const n = result.sharedPrefix;
    io.out(`shared prefix: ${n} entries (A and B are the same up to entry ${n})\n`);
    io.out(`A ${a} at #${result.a.headEntryId}, B ${b} at #${result.b.headEntryId}\n`);
    let turn = 0;
    result.turns.forEach((row) => {
      const id = row.a?.turnId ?? row.b?.turnId ?? null;
      io.out(id === null ? `before any turn\n` : `turn ${++turn} (A ${row.a?.turnId ?? '-'}, B ${row.b?.turnId ?? '-'})\n`);
      turnBlock(io, 'A', row.a);
      turnBlock(io, 'B', row.b);
    });
    io.out(totalsLine('total A', a, result.totals.a));
    io.out(totalsLine('total B', b, result.totals.b));
    return 0;
  });
}
