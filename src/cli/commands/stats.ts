import { ATTEMPT_EVENT } from '../../tape/entryNames';
import { sessionAgentOf } from '../../store/sessionAgent';
import { usageStats, type UsageRow } from '../../tape/usage/usageStats';
import { parseArgs } from '../args';
import { json, type Io } from '../output';
import { withTape } from './withTape';

const line = (r: UsageRow): string =>
  `${r.day}  ${r.agent}: ${r.sessions} session${r.sessions === 1 ? '' : 's'}, ${r.requests} request${r.requests === 1 ? '' : 's'}, ` +
  `${r.inputTokens} in (${r.cachedTokens} cached), ${r.outputTokens} out\n`;

/** `stats <tape> [--json]`: requests and tokens per agent and per day over every session of the tape, and per agent in all. */
export function statsCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { switches: ['json'], positional: ['tape'] });
  return withTape(p.positional[0], ({ store }) => {
    const sessions = store.sessions().map(({ sessionId }) => ({
      sessionId,
      agent: sessionAgentOf(store, sessionId),
      attempts: store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT }),
    }));
    const stats = usageStats(sessions);
    if (p.flags.has('json')) return (json(io, stats), 0);
    if (stats.rows.length === 0) io.out('no model requests recorded on this tape\n');
    for (const r of stats.rows) io.out(line(r));
    if (stats.totals.length > 0) io.out('in all:\n');
    for (const r of stats.totals) io.out(line(r).replace(/^all {2}/, '  '));
    return 0;
  });
}
