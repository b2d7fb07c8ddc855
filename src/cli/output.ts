import { safeJsonText } from '../tape/safeJsonText';

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

let quietStreams = false;

/**
 * Writes to stdout or stderr. A pipe write fails synchronously and the stream marks itself
 * errored at once, but says so only on the next tick: checking after the write is what stops a
 * loop over a tape's entries at the first one the reader did not take, not after formatting them
 * all. A gone stderr leaves nowhere to report anything, so its error is only kept quiet.
 */
function write(stream: NodeJS.WriteStream, text: string): void {
  if (!quietStreams) {
    quietStreams = true;
    for (const s of [process.stdout, process.stderr]) s.on('error', () => undefined);
  }
  if (stream === process.stdout && stream.errored) throw new OutputClosedError();
  stream.write(text);
  if (stream === process.stdout && stream.errored) throw new OutputClosedError();
}

export const processSink: Sink = {
  out: (t) => write(process.stdout, t),
  err: (t) => write(process.stderr, t),
};

/** C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F, CSI among them). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const stripControls = (text: string): string => text.replace(CONTROL, '');

export const ioOf = (sink: Sink): Io => ({
  out: (t) => sink.out(stripControls(t)),
  err: (t) => sink.err(stripControls(t)),
  data: (t) => sink.out(safeJsonText(t)),
});

export const json = (io: Io, value: unknown): void => io.data(`${JSON.stringify(value, null, 2)}\n`);

