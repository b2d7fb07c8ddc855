// Compaction audit speed (issue 33: 20,000 facts against a 64 KiB summary in under 1 s). A range of
// read_file calls, each naming a path and a result naming another (two path facts per call), is
// audited against a prose summary that names one path in 10 (a summary is dense in paths). The
// audit indexes the summary once (SubstringIndex) and looks each fact up; the baseline is the scan
// of the summary per fact the audit did before, over the same needles (each path and its file
// name). Each is run at 16 and 64 KiB of summary: the scan grows with facts x summary, the audit
// with facts + summary.
import { auditCompaction } from '../src/tape/audit/compactionAudit';
import { SubstringIndex } from '../src/tape/audit/substringIndex';
import { naiveOccursAsWord } from '../test/unit/tape/audit/naiveOccurrence';
import { TapeBuilder } from '../test/unit/tape/tapeBuilder';
import { median, proseOf, round, targets, time } from './common';

const TARGET_MS = 1_000;

const pathOf = (i: number): { path: string; name: string } => ({ path: `src/pkg${i % 97}/mod${i}/handler${i}.ts`, name: `handler${i}.ts` });

function session(facts: number, summaryBytes: number): { t: TapeBuilder; anchorEntryId: number; summary: string } {
  const t = new TapeBuilder();
  t.user('u1', 'Refactor the handlers');
  t.assistant('a1', 'Reading them.');
  for (let i = 0; i < facts; i += 2) {
    t.call('a1', `c${i}`, 'read_file', { path: pathOf(i).path });
    t.result('a1', `c${i}`, 'read_file', `export * from "${pathOf(i + 1).path}";`);
  }
  const named: string[] = [];
  for (let i = 0; i < facts; i += 10) named.push(`${proseOf(i, 10)} ${pathOf(i).path}`);
  const summary = `${named.join(' ')} ${proseOf(1, summaryBytes)}`.slice(0, summaryBytes);
  const anchor = t.anchor('compaction/auto', { summary, cursorOrderSeq: 2, sourceEntryIds: [] });
  return { t, anchorEntryId: anchor.entryId, summary };
}

interface Run {
  facts: number;
  summaryBytes: number;
  keptPaths: number;
  ms: { audit: number; indexAndLookups: number; scan: number };
  ratios: { scanVsIndexAndLookups: number };
}

function measure(facts: number, summaryBytes: number): Run {
  const { t, anchorEntryId, summary } = session(facts, summaryBytes);
  let audit = auditCompaction(t.entries, anchorEntryId);
  const auditMs = median(Array.from({ length: 3 }, () => time(() => (audit = auditCompaction(t.entries, anchorEntryId)))));
  if (audit.totals.path.facts !== facts) throw new Error(`expected ${facts} path facts, got ${audit.totals.path.facts}`);
  const hay = summary.toLowerCase();
  const needles = Array.from({ length: facts }, (_, i) => pathOf(i));
  const kept = (occurs: (needle: string) => boolean) => needles.map((p) => occurs(p.path) || occurs(p.name));
  let indexed: boolean[] = [];
  let scanned: boolean[] = [];
  const indexMs = time(() => {
    const index = new SubstringIndex(hay);
    indexed = kept((n) => index.occursAsWord(n));
  });
  const scanMs = time(() => (scanned = kept((n) => naiveOccursAsWord(hay, n))));
  if (indexed.some((x, k) => x !== scanned[k])) throw new Error('the index and the scan disagree');
  if (indexed.filter((x) => x).length !== audit.totals.path.inSummary) throw new Error('the audit and the lookups disagree');
  return {
    facts,
    summaryBytes,
    keptPaths: audit.totals.path.inSummary,
    ms: { audit: round(auditMs), indexAndLookups: round(indexMs), scan: round(scanMs) },
    ratios: { scanVsIndexAndLookups: round(scanMs / indexMs, 1) },
  };
}

function main(): void {
  const [small, large, fewer] = [measure(20_000, 16 * 1024), measure(20_000, 64 * 1024), measure(5_000, 64 * 1024)];
  console.log(
    JSON.stringify({
      bench: 'compactionAudit',
      note: 'ms.audit: auditCompaction of the range (facts gathered, summary indexed, each looked up), median of 3; indexAndLookups: SubstringIndex of the summary and every fact looked up once; scan: the same answers by scanning the summary per fact (the audit before issue 33); growth: 64 KiB over 16 KiB of summary at 20,000 facts (4 for facts x summary), and 20,000 over 5,000 facts at 64 KiB',
      runs: [small, large, fewer],
      growth: {
        summaryX4: { audit: round(large.ms.audit / small.ms.audit, 2), scan: round(large.ms.scan / small.ms.scan, 2) },
        factsX4: { audit: round(large.ms.audit / fewer.ms.audit, 2), scan: round(large.ms.scan / fewer.ms.scan, 2) },
      },
      msPerFact: round(large.ms.audit / large.facts, 4),
      target: { ms: TARGET_MS, ...targets({ '20,000 facts against a 64 KiB summary <= 1 s': large.ms.audit <= TARGET_MS }) },
    }),
  );
}

main();
