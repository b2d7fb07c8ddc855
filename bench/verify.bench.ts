// Verification replay of a session with 1,000 recorded requests (SPEC 2.7; issue 12: <= 2 s). The
// session is recorded by the AgentSession itself on an in-memory tape: 100 turns of 10 requests,
// nine of them reading a workspace file, in a 32k window, so auto-compactions come as they would.
// Against a naive replay: the same verification with a builder that refolds the prefix from the
// start for each request and loads each entry with its own query.
import * as fs from 'fs';
import { CURRENT_REBUILDER, type Rebuilder } from '../src/rerun/rebuilder';
import { verifySession } from '../src/rerun/verify';
import { TapeStore } from '../src/store/tapeStore';
import { assembleFromCache } from '../src/tape/contextAssembly';
import { FoldCache } from '../src/tape/foldCache';
import { median, round, targets, tempDir, time } from './common';
import { recordVerifySession, REQUESTS_PER_TURN, SESSION, TURNS } from './verifySession';

const ROUNDS = 5;
const TARGET_MS = 2_000;

/** The naive replay: no fold carried from one request to the next, no entry read only once. */
function naive(store: TapeStore): Rebuilder {
  return {
    ...CURRENT_REBUILDER,
    rebuild: (folds, facts) => assembleFromCache(new FoldCache(folds.source), { ...facts, getEntry: (id) => store.requireEntry(facts.sessionId, id) }),
  };
}

async function main(): Promise<void> {
  const dir = tempDir();
  const { store, tape, recordMs } = await recordVerifySession(dir);

  let report = verifySession(tape, SESSION);
  if (!report.ok || report.requests.length !== TURNS * REQUESTS_PER_TURN)
    throw new Error(`the recorded session does not verify: ${JSON.stringify(report.requests.find((r) => r.status !== 'match'))}`);
  const verifyMs = median(Array.from({ length: ROUNDS }, () => time(() => (report = verifySession(tape, SESSION)))));
  const baselineRebuilders = [naive(store)];
  const naiveMs = median(Array.from({ length: 3 }, () => time(() => verifySession(tape, SESSION, baselineRebuilders))));
  const entries = store.headEntryId(SESSION);
  const compactions = store.entries(SESSION, { kind: 'anchor' }).filter((e) => e.name.startsWith('compaction/')).length;
  const items = report.requests.length;
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });

  console.log(
    JSON.stringify({
      requests: items,
      entries,
      compactions,
      note: 'verifyMs: verifySession of the whole session (every manifest rebuilt, compared, integrity checked), median of 5; naiveReplayMs: the same with a builder that refolds each prefix from entry 1 and reads each entry with its own query, median of 3; recordMs: the AgentSession recording the session once (in memory, for scale)',
      ms: { verify: round(verifyMs), naiveReplay: round(naiveMs), target: TARGET_MS, record: round(recordMs) },
      ratios: { verifyVsTarget: round(verifyMs / TARGET_MS, 3), naiveVsVerify: round(naiveMs / verifyMs, 2) },
      targets: targets({ 'verification of 1,000 requests <= 2 s': verifyMs <= TARGET_MS }),
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
