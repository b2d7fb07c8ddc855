import * as fs from 'fs';
import * as path from 'path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';
import { errorMessage } from '../tape/errorMessage';

let loading: Promise<SqlJsStatic> | undefined;
let loaded: SqlJsStatic | undefined;

const WASM = 'sql-wasm.wasm';

/**
 * Loads the sql.js WASM module once per process. The bundles ship `sql-wasm.wasm` beside
 * themselves (esbuild.mjs copies it); unbundled code (tests, benches) finds it in node_modules.
 * The file is read and checked here: left to sql.js, a missing or damaged file ends in an
 * exception thrown outside any promise, which kills the process instead of saying what is wrong.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= Promise.resolve()
    .then(() => initSqlJs({ wasmBinary: wasmBinary() }))
    .then((SQL) => (loaded = SQL))
    .catch((e: unknown) => {
      loading = undefined; // let a later call retry instead of caching the failure
      throw new Error(`could not load SQLite (sql.js WASM): ${errorMessage(e)}`);
    });
  return loading;
}

/** The module `loadSqlJs` loaded, for synchronous code that runs only once a database exists. */
export function loadedSqlJs(): SqlJsStatic {
  if (!loaded) throw new Error('SQLite (sql.js) is not loaded yet');
  return loaded;
}

function wasmBinary(): ArrayBuffer {
  const beside = path.join(__dirname, WASM);
  let file = beside;
  if (!fs.existsSync(beside)) {
    try {
      file = require.resolve(`sql.js/dist/${WASM}`);
    } catch {
      throw new Error(`${beside} is missing; reinstall Agent Tape (or run the build, which copies it there)`);
    }
  }
  const bytes = fs.readFileSync(file);
  const binary = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  if (!WebAssembly.validate(binary)) throw new Error(`${file} is damaged (not a valid WebAssembly module); reinstall Agent Tape`);
  return binary;
}

export async function sqliteVersion(): Promise<string> {
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  try {
    return String(db.exec('select sqlite_version()')[0].values[0][0]);
  } finally {
    db.close();
  }
}
