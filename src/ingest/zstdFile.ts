import * as fs from 'fs';
import { Decompress } from 'fzstd';
import { TapeFileError } from '../store/errors';
import { openRegularSync } from '../store/safeRead';

/** What a zstd file is read in: small enough to hold, large enough that a big file is few reads. */
const CHUNK_BYTES = 1 << 20;

/**
 * A zstd-compressed regular file's content (Codex compresses a rollout idle for a week to
 * `.jsonl.zst`), through safeRead: its compressed size and what it decompresses to are each
 * bounded by `maxBytes`, the latter counted chunk by chunk as the streaming decoder gives them, so
 * a small file that expands without end is stopped there, not held. Data that is not zstd, or is
 * cut short, is a TapeFileError.
 */
export function readZstdFileSync(file: string, maxBytes: number, what: string): Buffer {
  const { fd, stat } = openRegularSync(file, maxBytes, what);
  const out: Uint8Array[] = [];
  let total = 0;
  let done = false;
  const decoder = new Decompress((data, final) => {
    total += data.length;
    if (total > maxBytes) throw new TapeFileError(file, `decompresses to over the ${maxBytes >> 20} MiB limit for ${what}; refusing to read it`);
    // The decoder may reuse its buffer for the next chunk: each is copied.
    out.push(Uint8Array.from(data));
    done ||= final === true;
  });
  try {
    const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, Math.max(1, stat.size)));
    for (let at = 0; at < stat.size;) {
      const n = fs.readSync(fd, chunk, 0, Math.min(chunk.length, stat.size - at), at);
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
  if (!done && stat.size > 0) throw new TapeFileError(file, 'is not a whole zstd file (it ends inside a frame); refusing to read it');
  return Buffer.concat(out);
}
