import * as fs from 'fs';
import { Decompress } from 'fzstd';
import { TapeFileError } from '../store/errors';
import { openRegularSync } from '../store/safeRead';

/** What a zstd file is read in: small enough to hold, large enough that a big file is few reads. */
const CHUNK_BYTES = 1 << 20;
/** A head is read in smaller steps: a step decompressed is decompressed whole, however much of it is wanted. */
const HEAD_CHUNK_BYTES = 64 << 10;

/**
 * A zstd-compressed regular file's content (Codex compresses a rollout idle for a week to
 * `.jsonl.zst`), through safeRead: its compressed size and what it decompresses to are each
 * bounded by `maxBytes`, the latter counted chunk by chunk as the streaming decoder gives them, so
 * a small file that expands without end is stopped there, not held. Data that is not zstd, or is
 * cut short, is a TapeFileError. `chunkBytes`: how much is read at a time.
 */
export const readZstdFileSync = (file: string, maxBytes: number, what: string, chunkBytes = CHUNK_BYTES): Buffer =>
  decompress(file, maxBytes, what, chunkBytes, Infinity);

/**
 * The first `headBytes` of what a zstd file decompresses to, as readZstdFileSync bounds it: reading
 * stops once they are out, so describing a compressed transcript (discovery's first prompt and
 * folder) does not decompress all of it.
 */
export const readZstdHeadSync = (file: string, headBytes: number, maxBytes: number, what: string): Buffer =>
  decompress(file, maxBytes, what, HEAD_CHUNK_BYTES, headBytes).subarray(0, headBytes);

function decompress(file: string, maxBytes: number, what: string, chunkBytes: number, headBytes: number): Buffer {
  const { fd, stat } = openRegularSync(file, maxBytes, what);
  const out: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const decoder = new Decompress((data, final) => {
    total += data.length;
    if (total > maxBytes) throw new TapeFileError(file, `decompresses to over the ${maxBytes >> 20} MiB limit for ${what}; refusing to read it`);
    // Each block is a new array (fzstd allocates one per block when no output buffer is given).
    out.push(data);
    done ||= final === true;
  });
  try {
    for (let at = 0; at < stat.size && total < headBytes;) {
      // A new buffer each time: the decoder keeps the unread end of a chunk until the next one.
      const chunk = Buffer.allocUnsafe(Math.min(chunkBytes, stat.size - at));
      const n = fs.readSync(fd, chunk, 0, chunk.length, at);
      if (n === 0) break;
      at += n;
      decoder.push(chunk.subarray(0, n), at >= stat.size);
    }
  } catch (e) {
    if (e instanceof TapeFileError) throw e;
    throw new TapeFileError(file, `is not a whole zstd file (${e instanceof Error ? e.message : String(e)}); refusing to read it`);
  } finally {
    fs.closeSync(fd);
  }
  if (!done && stat.size > 0 && total < headBytes) throw new TapeFileError(file, 'is not a whole zstd file (it ends inside a frame); refusing to read it');
  return Buffer.concat(out);
}
