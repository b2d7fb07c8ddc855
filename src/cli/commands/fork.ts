import { discardFork, forkSession, mergeFork } from '../../store/forks';
import { TapeStore } from '../../store/tapeStore';
import { int, parseArgs, required, str } from '../args';
import { json, type Io } from '../output';
import { requireSqliteTape } from './session';

/** Runs one fork operation on a writable tape and prints its receipt as JSON. */
async function withWritableTape(command: string, file: string, io: Io, op: (store: TapeStore) => Promise<object>): Promise<number> {
  requireSqliteTape(command, file);
  // Durable: the receipt is printed once its append is fsynced, as `handoff` does.
  const store = await TapeStore.open(file, { create: false, durable: true });
  try {
    json(io, await op(store));
    return 0;
  } finally {
    await store.close();
  }
}

export function forkCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['session', 'at', 'id'], positional: ['tape.sqlite'] });
  const sessionId = required(p, 'session');
  return withWritableTape('fork', p.positional[0], io, (store) => forkSession(store, sessionId, { at: int(p, 'at'), forkId: str(p, 'id') }));
}

export function mergeCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['fork'], positional: ['tape.sqlite'] });
  const fork = required(p, 'fork');
  return withWritableTape('merge', p.positional[0], io, (store) => mergeFork(store, fork));
}

export function discardCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, { valued: ['fork', 'reason'], positional: ['tape.sqlite'] });
  const fork = required(p, 'fork');
  return withWritableTape('discard', p.positional[0], io, (store) => discardFork(store, fork, str(p, 'reason')));
}
