import * as v8 from 'v8';

/**
 * Keeps SQLite's WebAssembly on V8's baseline compiler (Liftoff) for this process. V8 starts every
 * WASM function there and recompiles the hot ones with its optimising compiler; a CLI command
 * lives about a second, and that recompiling of SQLite's hot functions costs it more than the
 * faster code gives back. Measured on a 100k-entry tape (bench/search.bench.ts): the first search
 * for a word in 68% of the rows 195 ms with tiering, 96 ms without, the open 105 and 96 ms; 20k
 * appends (bench/cliAppend.bench.ts) the same within noise. Only the CLI, whose process is its
 * own, does this: the extension host is shared with other extensions and keeps V8's defaults.
 * Liftoff compiles every WASM feature SQLite uses on x64 and arm64; elsewhere V8 keeps its default.
 * Must run before sql.js is loaded: a module compiled already keeps its tiering.
 */
export function preferBaselineWasm(): void {
  if (process.arch === 'x64' || process.arch === 'arm64') v8.setFlagsFromString('--liftoff-only');
}
