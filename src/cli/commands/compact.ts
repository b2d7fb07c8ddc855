import { OpenTape } from '../../agent/session/openTape';
import type { AmendReceipt, ContextFit } from '../../agent/session/amendCompaction';
import type { SessionHandle } from '../../agent/session/sessionHandle';
import { readRegularFileSync } from '../../store/safeRead';
import { TapeStore } from '../../store/tapeStore';
import { CompactionAmendError, type Amendment } from '../../tape/audit/compactionAmendment';
import { SUMMARY_MAX_CHARS, summaryTooLong } from '../../tape/entry';
import { errorMessage } from '../../tape/errorMessage';
import { parseArgs, required, str, UsageError, type Parsed } from '../args';
import type { Io } from '../output';
import { EXIT_INTERRUPTED, MODEL_FLAGS, modelFromFlags, withInterrupt } from '../modelFlags';
import { requireSession, requireSqliteTape } from './session';
import { warnNearlyFull } from '../output';

const AMEND_FLAGS = ['pin', 'summary-file'];
/** The flags that name the model a compaction by the model calls; an amendment calls none. */
const CALL_FLAGS = MODEL_FLAGS.filter((f) => f !== 'session');

/** `--pin 12,15`: entry ids, each a positive integer. */
function pinnedIds(value: string): number[] {
  const ids = value.split(',').map((s) => s.trim());
  if (ids.some((s) => !/^[1-9]\d*$/.test(s))) throw new UsageError(`--pin takes entry ids separated by commas, got ${JSON.stringify(value)}`);
  return ids.map(Number);
}

/** The amendment the flags ask for, or null for a compaction by the model. */
function amendmentOf(p: Parsed): Amendment | null {
  const given = [...AMEND_FLAGS, 'undo'].filter((f) => p.flags.has(f));
  if (given.length > 1) throw new UsageError(`--${given.join(', --')}: give one amendment at a time`);
  const model = CALL_FLAGS.filter((f) => p.flags.has(f));
  if (given.length > 0 && model.length > 0)
    throw new UsageError(`--${given[0]} with --${model.join(', --')}: an amendment calls no model, so it takes no model flags`);
  const pin = str(p, 'pin');
  if (pin !== undefined) return { kind: 'pin', entryIds: pinnedIds(pin) };
  if (p.flags.has('undo')) return { kind: 'undo' };
  const file = str(p, 'summary-file');
  if (file === undefined) return null;
  let summary: string;
  try {
    // Four bytes a character at most: a file over that cannot be a summary within the limit.
    summary = new TextDecoder('utf-8', { fatal: true }).decode(readRegularFileSync(file, SUMMARY_MAX_CHARS * 4, 'a summary'));
  } catch (e) {
    throw new UsageError(`--summary-file ${file}: ${e instanceof TypeError ? 'not UTF-8 text' : errorMessage(e)}`);
  }
  const tooLong = summaryTooLong(summary);
  if (tooLong !== null) throw new UsageError(`--summary-file ${file}: ${tooLong}`);
  return { kind: 'edit', summary };
}

function fitLine(fit: ContextFit): string {
  const from = fit.anchorEntryId === null ? 'the session start' : `the anchor at entry ${fit.anchorEntryId}`;
  if (fit.budget === null) return `the next context starts from ${from}: about ${fit.estimatedTokens} tokens (no recorded request gives a window to fit it to)`;
  const dropped =
    fit.outOfBudget.length === 0
      ? 'everything fits'
      : `${fit.outOfBudget.length} entries do not fit and are left out: ${fit.outOfBudget.slice(0, 20).join(', ')}${fit.outOfBudget.length > 20 ? ', …' : ''}`;
  return `the next context starts from ${from}: about ${fit.estimatedTokens} of ${fit.budget} tokens of the last request's budget; ${dropped}`;
}

function printAmendment(io: Io, p: Parsed, sessionId: string, r: AmendReceipt): void {
  if (p.flags.has('json')) {
    io.data(
      `${JSON.stringify({ type: 'amendment', sessionId, entryId: r.entry.entryId, name: r.entry.name, anchorEntryId: r.anchorEntryId, alreadyPinned: r.alreadyPinned, fit: r.fit })}\n`,
    );
    return;
  }
  io.out(`${r.entry.entryId}\n`);
  const already = r.alreadyPinned.length === 0 ? '' : ` (${r.alreadyPinned.length === 1 ? 'entry' : 'entries'} ${r.alreadyPinned.join(', ')} already pinned)`;
  io.err(`${r.entry.name} of the compaction at entry ${r.anchorEntryId}${already}; ${fitLine(r.fit)}\n`);
}

async function amend(io: Io, p: Parsed, session: SessionHandle, amendment: Amendment): Promise<number> {
  try {
    printAmendment(io, p, session.sessionId, await session.amendCompaction(amendment));
    return 0;
  } catch (e) {
    if (!(e instanceof CompactionAmendError)) throw e;
    io.err(`agent-tape: ${e.message}\n`);
    return 2;
  }
}

/**
 * Compacts a session now: the model summarises the context in force into a `compaction/manual`
 * anchor, and the next turn starts from it; prints the anchor's entry id. With `--pin`, `--undo`
 * or `--summary-file` it amends the compaction in force instead (no model): prints the entry it
 * appended, and exits 2 with the reason when there is no compaction to amend.
 */
export async function compactCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: [...MODEL_FLAGS, ...AMEND_FLAGS], switches: ['json', 'undo'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  const amendment = amendmentOf(p);
  const action: { amendment: Amendment } | { model: ReturnType<typeof modelFromFlags> } = amendment !== null ? { amendment } : { model: modelFromFlags(p) };
  requireSqliteTape('compact', file);

  const store = await TapeStore.open(file, { create: false, onNearlyFull: warnNearlyFull(io) });
  try {
    requireSession(store, sessionId);
    const session = new OpenTape(store).session(sessionId);
    if ('amendment' in action) return await amend(io, p, session, action.amendment);
    const outcome = await withInterrupt((signal) => session.compact(action.model, signal));
    if ('error' in outcome) {
      io.err(`agent-tape: ${outcome.error}\n`);
      return outcome.error === 'compaction cancelled' ? EXIT_INTERRUPTED : 1;
    }
    const { entryId, name } = outcome.anchor;
    if (p.flags.has('json')) io.data(`${JSON.stringify({ type: 'compaction', sessionId, entryId, anchorName: name })}\n`);
    else io.out(`${entryId}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
