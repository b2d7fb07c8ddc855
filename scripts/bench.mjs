// `npm run bench [name…]`: bundles each bench/*.bench.ts and runs it in a fresh Node process (so
// one benchmark's heap never slows the next). Each prints one JSON object on stdout; this prints
// them as one JSON document and writes it to bench/results/latest.json.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const wanted = process.argv.slice(2);
const files = fs
  .readdirSync(path.join(root, 'bench'))
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => !wanted.length || wanted.some((w) => f.startsWith(w)));
const outDir = path.join(root, 'out', 'bench');
// The CLI's own bundle and its index worker, beside the benches: cliAppend runs it as a child process.
for (const [entry, out] of [
  [['src', 'cli', 'main.ts'], 'cli.js'],
  [['src', 'store', 'indexWorker.ts'], 'indexWorker.js'],
]) {
  await esbuild.build({
    entryPoints: [path.join(root, ...entry)],
    outfile: path.join(outDir, out),
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    logLevel: 'warning',
  });
}
const results = {};
let failed = false;
for (const f of files) {
  const outfile = path.join(outDir, f.replace(/\.ts$/, '.js'));
  await esbuild.build({
    entryPoints: [path.join(root, 'bench', f)],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['better-sqlite3', 'sql.js'],
    sourcemap: true,
    logLevel: 'warning',
  });
  process.stderr.write(`[bench] ${f} …\n`);
  const r = spawnSync('node', ['--expose-gc', outfile], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 << 20 });
  const name = f.replace(/\.bench\.ts$/, '');
  try {
    results[name] = JSON.parse(r.stdout);
  } catch {
    results[name] = { error: `exit ${r.status}`, stdout: r.stdout.slice(-2000) };
  }
  if (r.status !== 0) failed = true;
}
fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
const doc = JSON.stringify({ machine: { node: process.version, cpus: (await import('node:os')).cpus().length }, results }, null, 2);
fs.writeFileSync(path.join(root, 'bench', 'results', 'latest.json'), doc);
console.log(doc);
process.exit(failed ? 1 : 0);
