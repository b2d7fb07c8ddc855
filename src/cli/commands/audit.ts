import { auditCompaction, auditCompactions, CompactionAuditError, FACT_KINDS, type CompactionAudit, type FactKind } from '../../tape/audit/compactionAudit';
import { oneLine } from '../../tape/oneLine';
import { int, parseArgs, required } from '../args';
import { json, type Io } from '../output';
import { requireSession } from './session';
import { withTape } from './withTape';

const PLURAL: Record<FactKind, string> = { path: 'paths', command: 'commands', error: 'errors', request: 'requests', tool: 'tools' };

function printAudit(io: Io, name: string, audit: CompactionAudit): void {
  const kept = FACT_KINDS.map((k) => `${audit.totals[k].inSummary} of ${audit.totals[k].facts} ${PLURAL[k]}`).join(', ');
  const range = audit.range.from === null ? 'an empty range' : `entries ${audit.range.from}-${audit.range.to}`;
  io.out(`${name} at entry ${audit.anchorEntryId} (${range}): keeps ${kept}\n`);
  for (const f of audit.facts) {
    if (!f.inSummary) io.out(`  missing ${f.kind} ${oneLine(f.value, 200)} (entries ${f.entryIds.join(', ')})\n`);
  }
}

/** `audit <tape> --session S [--anchor ENTRY] [--json]`: what each compaction's summary kept of the range it replaced. */
export function auditCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'anchor'], switches: ['json'], positional: ['tape'] });
  const sessionId = required(p, 'session');
  const anchor = int(p, 'anchor');
  return withTape(p.positional[0], (tape) => {
    requireSession(tape.store, sessionId);
    const entries = tape.session(sessionId).entries();
    const audits = anchor === undefined ? auditCompactions(entries) : [auditCompaction(entries, anchor)];
    if (audits.length === 0) throw new CompactionAuditError(`session ${JSON.stringify(sessionId)} has no compaction`);
    if (p.flags.has('json')) {
      json(io, anchor === undefined ? audits : audits[0]);
      return 0;
    }
    const names = new Map(entries.map((e) => [e.entryId, e.name]));
    for (const a of audits) printAudit(io, names.get(a.anchorEntryId) ?? 'compaction', a);
    return 0;
  });
}
