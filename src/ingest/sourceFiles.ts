import * as fs from 'fs';
import { TapeFileError } from '../store/errors';
import { openRegularSync, readRegularFileIfExistsSync, readRegularFileSync, readUpToSync } from '../store/safeRead';
import { jsonTextTooDeep } from '../tape/jsonDepth';
import { TRANSCRIPT_MAX_BYTES } from './transcriptLines';

/**
 * Reading other agents' sources: every one may be a file from a cloned repository or a folder
 * another program is writing. Files go through safeRead (regular files only, bounded), JSON is
 * depth-checked before it is parsed, and folder walks are bounded.
 */

/** How much of a file content detection looks at. */
const SOURCE_HEAD_BYTES = 64 * 1024;

/** A file's first SOURCE_HEAD_BYTES, or null when it is not a regular file that can be read. */
export function readSourceHead(file: string): Buffer | null {
  try {
    const { fd, stat } = openRegularSync(file);
    try {
      return readUpToSync(fd, stat.size, SOURCE_HEAD_BYTES);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** A whole source file, at most TRANSCRIPT_MAX_BYTES: a FIFO, a device or a larger file is a TapeFileError. */
export const readSourceBytes = (file: string): Buffer => readRegularFileSync(file, TRANSCRIPT_MAX_BYTES, 'an agent session file');

/** readSourceBytes of a companion file that may not be there (a database's write-ahead log): null then. */
export const readSourceBytesIfExists = (file: string): Buffer | null => readRegularFileIfExistsSync(file, TRANSCRIPT_MAX_BYTES, 'an agent session file');

/**
 * A JSON source file's value. Too deep a document, or one that is not JSON (often one caught while
 * its agent rewrites it), is a TapeFileError naming the file.
 */
export function readSourceJson(file: string): unknown {
  const text = readSourceBytes(file).toString('utf8');
  const deep = jsonTextTooDeep(text);
  if (deep !== null) throw new TapeFileError(file, `is not read: it ${deep}`);
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new TapeFileError(file, `is not valid JSON (${(e as Error).message}); if its agent is writing it, the next run reads it again`);
  }
}

/** The names in a folder, sorted; none when it cannot be read. */
export function listDir(dir: string): fs.Dirent[] {
  try {
    return fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return [];
  }
}
