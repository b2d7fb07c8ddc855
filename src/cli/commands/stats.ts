import { isIngestedSession } from '../../tape/ingestedSession';
import { ATTEMPT_EVENT } from '../../tape/projections/tokenUsage';
import { usageStats, type UsageRow } from '../../tape/usageStats';
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
    const sessions = store.sessions().map(({ sessionId }) => {
      // The first entries tell an ingested session (its start, or on older tapes the keys after it).
      const first = store.entries(sessionId, { limit: 8 });
      const start = first[0];
      return {
        sessionId,
        start,
        attempts: store.entries(sessionId, { kind: 'event', name: ATTEMPT_EVENT }),
        ingested: isIngestedSession(
          sessionId,
          start,
          first.map((e) => e.provenanceKey),
        ),
      };
    });
    const stats = usageStats(sessions);
    if (p.flags.has('json')) return (json(io, stats), 0);
    if (stats.rows.length === 0) io.out('no model requests recorded on this tape\n');
    for (const r of stats.rows) io.out(line(r));
    if (stats.totals.length > 0) io.out('in all:\n');
    for (const r of stats.totals) io.out(line(r).replace(/^all {2}/, '  '));
    return 0;
  });
}
