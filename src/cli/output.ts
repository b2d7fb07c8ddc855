import * as fs from 'fs';
import { safeJsonText } from '../tape/safeJsonText';
import { BIDI_FORMATTING, unicodeEscape } from '../tape/unicodeEscape';

/** Where the CLI's output ends up: the process's stdout and stderr, or a test's buffers. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
}

/**
 * What commands write through. `out` and `err` are for people and carry tape text (names, session
 * ids, content, snippets, errors echoing input), so terminal control characters are removed from
 * them: a tool output on the tape must not be able to move the cursor, retitle or rewrite the
 * user's terminal. `data` is machine output (JSON, one value or JSON Lines): the same values
 * exactly, with control characters escaped (safeJsonText), for the same reason.
 */
export interface Io extends Sink {
  data(text: string): void;
}

/**
 * Thrown by a write to a stdout whose reader has gone (`agent-tape log … | head -1`): the command
 * stops where it is, and the CLI exits without a word (main.ts), as a program killed by SIGPIPE
 * would; Node ignores SIGPIPE, so without this the write's EPIPE was an unhandled 'error' event.
 */
export class OutputClosedError extends Error {
  constructor() {
    super('stdout was closed');
    this.name = 'OutputClosedError';
  }
}

/** What Atomics.wait sleeps on while a non-blocking stdout is full. */
const pause = new Int32Array(new SharedArrayBuffer(4));

/**
 * Writes to stdout through the descriptor, synchronously. process.stdout's own writes queue in
 * memory once the pipe is full (a slow `| head`), and their EPIPE then arrives later as an
 * 'error' event: the loop over a tape's entries went on formatting all of them, and without a
 * listener the event was an unhandled-error stack trace. Here a write returns once the reader
 * has the bytes, and one to a gone reader throws at once, so the command stops at that entry.
 * process.stdout is never touched: creating it would make the descriptor non-blocking.
 */
function writeOut(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  for (let at = 0; at < bytes.length;) {
    try {
      at += fs.writeSync(1, bytes, at);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // A descriptor someone else made non-blocking: wait for the reader instead of spinning.
      if (code === 'EAGAIN') Atomics.wait(pause, 0, 0, 1);
      // A socket pair's reader gone (Node's spawn gives children sockets, not pipes) says ECONNRESET.
      else if (code === 'EPIPE' || code === 'ECONNRESET') throw new OutputClosedError();
      else throw e;
    }
  }
}

let quietStderr = false;

/** A gone stderr leaves nowhere to report anything: its error is only kept quiet. */
function writeErr(text: string): void {
  if (!quietStderr) {
    quietStderr = true;
    process.stderr.on('error', () => undefined);
  }
  process.stderr.write(text);
}

export const processSink: Sink = {
  out: writeOut,
  err: writeErr,
};

/** C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F, CSI among them). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** Text for a terminal: controls dropped, bidi formatting shown as escapes. */
export const terminalText = (text: string): string => text.replace(CONTROL, '').replace(BIDI_FORMATTING, unicodeEscape);

export const ioOf = (sink: Sink): Io => ({
  out: (t) => sink.out(terminalText(t)),
  err: (t) => sink.err(terminalText(t)),
  data: (t) => sink.out(safeJsonText(t)),
});

export const json = (io: Io, value: unknown): void => io.data(`${JSON.stringify(value, null, 2)}\n`);

/** A writable store's `onNearlyFull`: the warning on stderr, once (the command's output stays clean). */
export const warnNearlyFull =
  (io: Sink) =>
  (warning: string): void =>
    io.err(`agent-tape: warning: ${warning}\n`);
