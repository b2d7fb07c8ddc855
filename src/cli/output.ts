/** Output goes through here so commands stay testable and every line ends the same way. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (t) => process.stdout.write(t),
  err: (t) => process.stderr.write(t),
};

export const json = (io: Io, value: unknown): void => io.out(`${JSON.stringify(value, null, 2)}\n`);
