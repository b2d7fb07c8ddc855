import { JsonlChecker } from './jsonl';
import type { RowTuple } from './rowTuple';
import { openRegular } from './safeRead';

/**
 * The largest `.tape.jsonl` read. It becomes a database in memory about 1.6 times its size (rows
 * and search index) inside one JS typed array, which cannot pass 4 GiB; the editor asks for less
 * (see the inspector's tape editor).
 */
export const JSONL_MAX_BYTES = 1 << 30;

const CHUNK_BYTES = 1 << 20;
/** Lines parsed before their rows go into the database and are dropped. */
const BATCH_BYTES = 4 << 20;
const NEWLINE = 0x0a;

/**
 * The rows of a `.tape.jsonl` file, a few MiB of lines at a time, read in chunks through one
 * checked descriptor (safeRead.ts): the file's text is never held whole, nor all of its rows, so a
 * read-only open holds little more than the database it builds (bench/jsonlMemory: a 41 MB file
 * peaked at 528 MB of RSS when it was split and parsed whole, 290 MB this way).
 * Lines are split on the bytes, so a character cut by a chunk's end is decoded whole; the lines
 * are those of `text.split('\n')` with an empty last one dropped, as parseJsonl has them.
 */
export async function* jsonlBatches(file: string, maxBytes = JSONL_MAX_BYTES): AsyncGenerator<RowTuple[]> {
  const { handle, stat } = await openRegular(file, maxBytes, 'a JSONL tape');
  try {
    const checker = new JsonlChecker(file);
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES);
    /** The start of a line that runs past the chunks read so far (copies: `chunk` is reused). */
    let partial: Buffer[] = [];
    let lineNo = 0;
    let batch: RowTuple[] = [];
    let batchBytes = 0;
    // Up to the size fstat gave: a file that grows meanwhile is read as it was when opened.
    for (let pos = 0; pos < stat.size;) {
      const { bytesRead } = await handle.read(chunk, 0, Math.min(CHUNK_BYTES, stat.size - pos), pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const bytes = chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = bytes.indexOf(NEWLINE); nl >= 0; nl = bytes.indexOf(NEWLINE, start)) {
        const line = partial.length ? Buffer.concat([...partial, bytes.subarray(0, nl)]).toString('utf8') : bytes.toString('utf8', start, nl);
        partial = [];
        batch.push(checker.row(line, ++lineNo));
        batchBytes += line.length;
        start = nl + 1;
        if (batchBytes >= BATCH_BYTES) {
          yield batch;
          batch = [];
          batchBytes = 0;
        }
      }
      if (start < bytes.length) partial.push(Buffer.from(bytes.subarray(start)));
    }
    if (partial.length) batch.push(checker.row(Buffer.concat(partial).toString('utf8'), ++lineNo));
    if (batch.length) yield batch;
  } finally {
    await handle.close();
  }
}
