// Compaction coverage (issue 20): of the facts of the range each compaction replaced (paths,
// commands, errors, requests, tools), the share the next context still names. The baseline is the
// summary alone, what other agents send; ours is the checkpoint Agent Tape sends, the summary and
// its "also in this range" list (at most 40 facts, tools left out). Transcripts: the files named by
// AGENT_TAPE_TRANSCRIPTS (separated by the path delimiter: Claude Code session files, Codex
// rollouts), else the repository's two ingest fixtures. This measures; it has no target.
import * as fs from 'fs';
import * as path from 'path';
import { ingestFile } from '../src/ingest/ingest';
import { TapeStore } from '../src/store/tapeStore';
import { alsoInRangeOf } from '../src/tape/audit/alsoInRange';
import { auditCompaction, compactionAnchors, FACT_KINDS, type CompactionAudit, type FactKind } from '../src/tape/audit/compactionAudit';
import { ALSO_IN_RANGE, checkpointSummaryText } from '../src/tape/context';
import type { Entry } from '../src/tape/entry';
import { writeClaudeCode, writeCodex } from '../test/unit/ingest/fixtures';
import { round, tempDir } from './common';

type Counts = Record<FactKind, { facts: number; named: number }>;

const zero = (): Counts => Object.fromEntries(FACT_KINDS.map((k) => [k, { facts: 0, named: 0 }])) as Counts;

function add(into: Counts, audit: CompactionAudit): void {
  for (const k of FACT_KINDS) {
    into[k].facts += audit.totals[k].facts;
    into[k].named += audit.totals[k].inSummary;
  }
}

/** The audit of the same range against what our checkpoint carries: the summary and the list of what it missed. */
function withList(entries: readonly Entry[], anchor: Entry, before: CompactionAudit): CompactionAudit {
  const state = { ...(anchor.payload.state as Record<string, unknown>), [ALSO_IN_RANGE]: alsoInRangeOf(before) };
  const listed: Entry = { ...anchor, payload: { ...anchor.payload, state } };
  const carried: Entry = { ...listed, payload: { ...listed.payload, state: { ...state, summary: checkpointSummaryText(listed) } } };
  return auditCompaction(
    entries.map((e) => (e.entryId === anchor.entryId ? carried : e)),
    anchor.entryId,
  );
}

const share = (c: { facts: number; named: number }): number | null => (c.facts === 0 ? null : round(c.named / c.facts));

function transcripts(dir: string): string[] {
  const given = process.env.AGENT_TAPE_TRANSCRIPTS;
  if (given !== undefined && given.trim() !== '') return given.split(path.delimiter).filter((f) => f !== '');
  return [writeClaudeCode(dir), writeCodex(dir)];
}

async function main(): Promise<void> {
  const dir = tempDir();
  const store = await TapeStore.inMemory();
  const baseline = zero();
  const ours = zero();
  const perCompaction: object[] = [];
  try {
    for (const file of transcripts(dir)) {
      const report = await ingestFile(store, file);
      for (const sessionId of report.sessions) {
        const entries = store.entries(sessionId);
        for (const anchor of compactionAnchors(entries)) {
          const before = auditCompaction(entries, anchor.entryId);
          const after = withList(entries, anchor, before);
          add(baseline, before);
          add(ours, after);
          perCompaction.push({
            file: path.basename(file),
            sessionId,
            anchorEntryId: anchor.entryId,
            baseline: Object.fromEntries(FACT_KINDS.map((k) => [k, `${before.totals[k].inSummary}/${before.totals[k].facts}`])),
            ours: Object.fromEntries(FACT_KINDS.map((k) => [k, `${after.totals[k].inSummary}/${after.totals[k].facts}`])),
          });
        }
      }
    }
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const shares = (c: Counts) => Object.fromEntries(FACT_KINDS.map((k) => [k, share(c[k])]));
  console.log(
    JSON.stringify({
      bench: 'compactionCoverage',
      source: process.env.AGENT_TAPE_TRANSCRIPTS ? 'AGENT_TAPE_TRANSCRIPTS' : 'repository ingest fixtures',
      compactions: perCompaction.length,
      baseline: { what: 'the summary alone', share: shares(baseline), counts: baseline },
      ours: { what: 'summary + also-in-this-range list', share: shares(ours), counts: ours },
      ratio: Object.fromEntries(FACT_KINDS.map((k) => [k, baseline[k].named === 0 ? null : round(ours[k].named / baseline[k].named)])),
      perCompaction,
    }),
  );
}

void main();
