import * as fs from 'fs';
import * as path from 'path';
import initSqlJs, { type SqlJsStatic } from 'sql.js';

let loading: Promise<SqlJsStatic> | undefined;

/**
 * Loads the sql.js WASM module once per process. The bundles ship `sql-wasm.wasm` beside
 * themselves (esbuild.mjs copies it); unbundled code (tests, benches) finds it in node_modules.
 */
export function loadSqlJs(): Promise<SqlJsStatic> {
  loading ??= initSqlJs({ locateFile: locateWasm }).catch((e: unknown) => {
    loading = undefined; // let a later call retry instead of caching the failure
    throw new Error(`could not load SQLite (sql.js WASM): ${e instanceof Error ? e.message : String(e)}`);
  });
  return loading;
}

function locateWasm(file: string): string {
  const beside = path.join(__dirname, file);
  return fs.existsSync(beside) ? beside : require.resolve(`sql.js/dist/${file}`);
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
