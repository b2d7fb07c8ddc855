import { describeRequest, verifyTape, type VerifyReport } from '../../rerun/verify';
import { parseArgs, str } from '../args';
import { json, type Io } from '../output';
import { requireSession } from './session';
import { withTape } from './withTape';

/** `agent-tape verify`: exit 0 when every recorded request is rebuilt exactly and the tape is intact, else 1. */
export function verifyCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session'], switches: ['json'], positional: ['tape'] });
  const sessionId = str(p, 'session');
  return withTape(p.positional[0], (tape) => {
    if (sessionId !== undefined) requireSession(tape.store, sessionId);
    const report = verifyTape(tape, { sessionId });
    if (p.flags.has('json')) json(io, report);
    else printReport(io, report);
    return report.ok ? 0 : 1;
  });
}

function printReport(io: Io, report: VerifyReport): void {
  for (const s of report.sessions) {
    io.out(`${s.sessionId}\n`);
    for (const r of s.requests) io.out(`  ${r.status === 'match' || r.status === 'merged' ? '✓' : '✗'} ${describeRequest(r)}\n`);
    for (const problem of s.integrity) io.out(`  ✗ integrity (${problem.check}): ${problem.message}\n`);
    if (s.note !== null) io.out(`  ${s.note}\n`);
  }
  const { summary: n } = report;
  const counts = [
    `${n.match} match`,
    `${n.mismatch} mismatch`,
    `${n.cannotRebuild} cannot rebuild`,
    ...(n.merged > 0 ? [`${n.merged} merged`] : []),
    `${n.integrityProblems} integrity problems`,
  ];
  const verdict = report.ok ? (report.note ?? 'verified') : 'FAILED';
  io.out(`${verdict}: ${n.requests} requests in ${n.sessions} sessions: ${counts.join(', ')}\n`);
}
