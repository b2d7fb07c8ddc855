import { OpenTape } from '../../agent/session/openTape';
import type { JsonObject } from '../../tape/entry';
import { jsonTextTooDeep } from '../../tape/jsonDepth';
import { TapeStore } from '../../store/tapeStore';
import { parseArgs, required, str, UsageError } from '../args';
import type { Io } from '../output';
import { requireSession, requireSqliteTape } from './session';
import { warnNearlyFull } from '../output';

function stateOf(text: string | undefined): JsonObject | undefined {
  if (text === undefined) return undefined;
  const deep = jsonTextTooDeep(text);
  if (deep) throw new UsageError(`--state ${deep}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--state is not JSON (${(e as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new UsageError('--state must be a JSON object');
  return value as JsonObject;
}

/** Appends a `handoff/<name>` anchor to an existing session and prints its entry id once it is fsynced. */
export async function handoffCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'name', 'summary', 'state'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  const name = required(p, 'name');
  const summary = required(p, 'summary');
  // The state is checked before the tape is opened; the name and summary by the append, which writes nothing for bad ones.
  const state = stateOf(str(p, 'state'));
  requireSqliteTape('handoff', file);

  const store = await TapeStore.open(file, { create: false, onNearlyFull: warnNearlyFull(io) });
  try {
    requireSession(store, sessionId);
    const anchor = await new OpenTape(store).session(sessionId).handoff(name, summary, state);
    io.out(`${anchor.entryId}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
