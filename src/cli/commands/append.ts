import { StringDecoder } from 'string_decoder';
import { TapeValidationError, validateNewEntry, type NewEntry } from '../../tape/entry';
import { TapeFileError } from '../../store/errors';
import { jsonTextTooDeep } from '../../tape/jsonDepth';
import { TapeStore, type AppendResult } from '../../store/tapeStore';
import { parseArgs, required } from '../args';
import type { Io } from '../output';
import { requireSqliteTape } from './session';
import { warnNearlyFull } from '../output';

/**
 * The complete lines of each chunk of `input` as it arrives, split on "\n" (a "\r" before it is
 * JSON whitespace, so CRLF input parses too); a last line without "\n" comes at the end.
 */
async function* lineBatches(input: NodeJS.ReadableStream): AsyncGenerator<string[]> {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  for await (const chunk of input) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    // Only the part up to the chunk's last newline is split: a long line arriving in many chunks
    // is carried along, not rescanned with each of them.
    const last = text.lastIndexOf('\n');
    if (last < 0) {
      partial += text;
      continue;
    }
    const lines = (partial + text.slice(0, last)).split('\n');
    partial = text.slice(last + 1);
    yield lines;
  }
  partial += decoder.end();
  if (partial) yield [partial];
}

const ack = (r: AppendResult): string => `{"entryId":${r.entry.entryId},"deduplicated":${r.deduplicated}}\n`;

/**
 * Appends JSON Lines from stdin. The lines of each chunk read are appended together as one batch
 * (one transaction, one journal record) as soon as they arrive, so batches arriving together share
 * a group commit; their results are printed, in input order and one write per batch, only once
 * the batch is in the journal: a printed entry survives the process dying, and with --durable
 * (fsynced before printing) the machine going down too. A refused line stops the stream: the lines
 * before it are appended, none after it.
 */
export async function appendCommand(args: string[], io: Io, input: NodeJS.ReadableStream = process.stdin): Promise<number> {
  const p = parseArgs(args, { valued: ['session'], switches: ['durable'], positional: ['tape.sqlite'] });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  requireSqliteTape('append', file);
  // A bulk writer: the search index is built on a second thread while lines are read and appended.
  const store = await TapeStore.open(file, { durable: p.flags.has('durable'), indexInWorker: true, onNearlyFull: warnNearlyFull(io) });
  let failure: unknown;
  let printed = Promise.resolve();

  /**
   * Appends parsed lines (`lineNos` are their line numbers); `then` is the error to stop with once
   * they are in (a bad line after them).
   */
  const submit = (entries: unknown[], lineNos: number[], then: Error | undefined): void => {
    // Only the store validates (once per entry). It refuses a batch whole and synchronously, so the
    // promise is already rejected here and this handler runs before the loop reads on (promise
    // jobs run in order): it finds the refused line, appends the lines before it, and stops the loop.
    const appended = store.appendMany(sessionId, entries as NewEntry[]).then(
      (results) => {
        failure ??= then;
        return results;
      },
      (e: unknown) => {
        if (!(e instanceof TapeValidationError)) throw e;
        let bad = 0;
        let reason = e;
        for (; bad < entries.length; bad++) {
          try {
            validateNewEntry(entries[bad]);
          } catch (invalid) {
            if (invalid instanceof TapeValidationError) reason = invalid;
            break;
          }
        }
        if (bad === entries.length) bad = 0; // no line is bad alone: refuse from the batch's first
        failure ??= new TapeFileError('<stdin>', reason.message, lineNos[bad]);
        return store.appendMany(sessionId, entries.slice(0, bad) as NewEntry[]);
      },
    );
    appended.catch((e: unknown) => (failure ??= e));
    printed = printed
      .then(() =>
        appended.then(
          (results) => {
            if (results.length) io.data(results.map(ack).join(''));
          },
          () => undefined,
        ),
      )
      // A reader of the acks that has gone (a closed stdout) stops the stream like a refused line.
      .catch((e: unknown) => void (failure ??= e));
  };

  let lineNo = 0;
  try {
    for await (const lines of lineBatches(input)) {
      if (failure) break;
      const entries: unknown[] = [];
      const lineNos: number[] = [];
      let badLine: Error | undefined;
      for (const line of lines) {
        lineNo++;
        if (!line.trim()) continue;
        const deep = jsonTextTooDeep(line);
        if (deep) {
          badLine = new TapeFileError('<stdin>', deep, lineNo);
          break;
        }
        try {
          entries.push(JSON.parse(line));
          lineNos.push(lineNo);
        } catch (e) {
          badLine = new TapeFileError('<stdin>', `not a JSON line (${(e as Error).message})`, lineNo);
          break;
        }
      }
      submit(entries, lineNos, badLine);
      if (badLine) break;
    }
    await printed;
  } finally {
    await store.close();
  }
  if (failure) throw failure;
  return 0;
}
