import { OpenTape } from '../../agent/session/openTape';
import { TapeStore } from '../../store/tapeStore';
import { int, parseArgs, required, str } from '../args';
import { type Io, json, warnNearlyFull } from '../output';
import { requireSqliteTape } from './session';

/** Runs one fork operation on a writable tape and prints its receipt as JSON. */
async function withWritableTape(command: string, file: string, io: Io, op: (tape: OpenTape) => Promise<object>): Promise<number> {
  requireSqliteTape(command, file);
  // Durable: the receipt is printed once its append is fsynced, as `handoff` does.
  const store = await TapeStore.open(file, { create: false, durable: true, onNearlyFull: warnNearlyFull(io) });
  try {
    json(io, await op(new OpenTape(store)));
    return 0;
  } finally {
    await store.close();
  }
}

export function forkCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'at', 'id'], positional: ['tape.sqlite'] });
  const sessionId = required(p, 'session');
  return withWritableTape('fork', p.positional[0], io, (tape) => tape.session(sessionId).fork({ at: int(p, 'at'), forkId: str(p, 'id') }));
}

export function mergeCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['fork'], positional: ['tape.sqlite'] });
  const fork = required(p, 'fork');
  return withWritableTape('merge', p.positional[0], io, (tape) => tape.session(fork).merge());
}

export function discardCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['fork', 'reason'], positional: ['tape.sqlite'] });
  const fork = required(p, 'fork');
  return withWritableTape('discard', p.positional[0], io, (tape) => tape.session(fork).discard(str(p, 'reason')));
}
