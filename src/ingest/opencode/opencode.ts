import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../store/errors';
import type { SourceFormat } from '../sourceFormat';
import { readOpencodeDb } from './opencodeDb';
import { isStorageLayout, readOpencodeStorage } from './opencodeFiles';
import { mapOpencode } from './opencodeMapping';

/**
 * opencode's sessions (github.com/sst/opencode, packages/opencode): its SQLite database since 1.2
 * (`~/.local/share/opencode/opencode.db`, or `opencode-<channel>.db` for a non-release build),
 * and before it the per-file `storage/` folder beside it. One source holds the sessions of every
 * project opencode was used in; all are read.
 */

/** opencode's database (and its log and shared-memory files, which stand for it). */
const DB_NAME = /^(opencode(?:-[A-Za-z0-9._-]+)?\.db)(?:-wal|-shm)?$/;
const SQLITE_MAGIC = 'SQLite format 3\0';
/** The tables opencode's migrations create, as SQLite keeps their CREATE statements at the start of the file. */
const TABLES = ['session', 'message', 'part'].map((t) => new RegExp(`CREATE TABLE [\`"]?${t}[\`"]?\\s*\\(`));

/** The storage folder `file` is in (or is): a `storage` folder in an `opencode` one. */
function storageOf(file: string): string | null {
  const parts = path.resolve(file).split(path.sep);
  for (let i = parts.length - 1; i > 0; i--) if (parts[i] === 'storage' && parts[i - 1] === 'opencode') return parts.slice(0, i + 1).join(path.sep) || path.sep;
  return null;
}

function isDirectory(source: string): boolean {
  try {
    return fs.statSync(source).isDirectory();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new TapeFileError(source, 'does not exist');
    throw new TapeFileError(source, `cannot be read: ${(e as Error).message}`);
  }
}

export const opencode: SourceFormat = {
  name: 'opencode',
  sourceOfPath(file) {
    const db = DB_NAME.exec(path.basename(file));
    if (db !== null) return path.join(path.dirname(file), db[1]);
    return storageOf(file);
  },
  recognizesFolder: isStorageLayout,
  recognizes(_source, head) {
    if (head.length < 100 || head.toString('latin1', 0, 16) !== SQLITE_MAGIC) return false;
    const text = head.toString('latin1');
    return TABLES.every((t) => t.test(text));
  },
  async read(source) {
    const data = isDirectory(source) ? readOpencodeStorage(source) : await readOpencodeDb(source);
    return mapOpencode(data, source);
  },
};
