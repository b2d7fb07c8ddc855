/** Where the CLI's output ends up: the process's stdout and stderr, or a test's buffers. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
}

/**
 * What commands write through. `out` and `err` are for people and carry tape text (names, session
 * ids, content, snippets, errors echoing input), so terminal control characters are removed from
 * them: a tool output on the tape must not be able to move the cursor, retitle or rewrite the
 * user's terminal. `data` is machine output (JSON), written exactly.
 */
export interface Io extends Sink {
  data(text: string): void;
}

export const processSink: Sink = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

/** C0 controls except tab and newline, DEL, and the C1 controls (U+0080-U+009F, CSI among them). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export const stripControls = (text: string): string => text.replace(CONTROL, '');

export const ioOf = (sink: Sink): Io => ({
  out: (t) => sink.out(stripControls(t)),
  err: (t) => sink.err(stripControls(t)),
  data: (t) => sink.out(t),
});

export const json = (io: Io, value: unknown): void => io.data(`${JSON.stringify(value, null, 2)}\n`);

