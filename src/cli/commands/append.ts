import * as readline from 'readline';
import { TapeValidationError, validateNewEntry, type NewEntry } from '../../tape/entry';
import { TapeFileError } from '../../store/errors';
import { formatOf } from '../../store/tapeFile';
import { TapeStore } from '../../store/tapeStore';
import { parseArgs, required, UsageError } from '../args';
import type { Io } from '../output';

/**
 * Appends JSON Lines from stdin. Each line is appended as soon as it is read (so appends that
 * arrive together share a group commit) and its result is printed, in input order, only once it
 * is in the journal: a printed entry survives the process dying, and with --durable (fsynced
 * before printing) the machine going down too.
 */
export async function appendCommand(args: string[], io: Io, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const p = parseArgs(args, { valued: ['session'], switches: ['durable'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  if (formatOf(file) !== 'sqlite') throw new UsageError(`append writes to *.tape.sqlite files, not ${file}`);
  const store = await TapeStore.open(file, { durable: p.flags.has('durable') });
  let failure: unknown;
  let printed = Promise.resolve();
  let lineNo = 0;
  try {
    for await (const line of readline.createInterface({ input, crlfDelay: Infinity })) {
      // Stop at the first refused line instead of appending the entries after it.
      if (failure) break;
      lineNo++;
      if (!line.trim()) continue;
      let entry: unknown;
      try {
        entry = JSON.parse(line);
      } catch (e) {
        failure = new TapeFileError('<stdin>', `not a JSON line (${(e as Error).message})`, lineNo);
        break;
      }
      // Validated here as well as in the store so that a refused line stops the stream synchronously,
      // before any line after it is appended.
      try {
        entry = validateNewEntry(entry);
      } catch (e) {
        failure = e instanceof TapeValidationError ? new TapeFileError('<stdin>', e.message, lineNo) : e;
        break;
      }
      const appended = store.append(sessionId, entry as NewEntry);
      appended.catch((e: unknown) => (failure ??= e));
      printed = printed.then(() =>
        appended.then((r) => io.out(`${JSON.stringify({ entryId: r.entry.entryId, deduplicated: r.deduplicated })}\n`), () => undefined),
      );
    }
    await printed;
  } finally {
    await store.close();
  }
  if (failure) throw failure;
  return 0;
}
