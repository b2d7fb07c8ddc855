#!/usr/bin/env node
// `npm run demo-tapes`: records demo/samples/coding-session.tape.sqlite again with the agent core
// against a scripted model (test/support/demoTapes.ts), then checks it with verification replay.
// Bundled with esbuild beside node_modules, so sql.js and its WASM resolve as in the tests.
import * as esbuild from 'esbuild';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const outDir = path.join(root, 'node_modules', '.cache', 'agent-tape');
fs.mkdirSync(outDir, { recursive: true });
const outfile = path.join(outDir, 'make-demo-tapes.cjs');
await esbuild.build({
  stdin: {
    contents: "export { writeDemoTape, DEMO_DIR } from './test/support/demoTapes'; export { run } from './src/cli/main';",
    resolveDir: root,
    loader: 'ts',
  },
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  logLevel: 'warning',
});
const { writeDemoTape, run } = createRequire(import.meta.url)(outfile);
const demo = path.join(root, 'demo');
const file = await writeDemoTape(path.join(demo, 'samples'), demo);
console.log(`wrote ${path.relative(root, file)} (${fs.statSync(file).size} bytes)`);
process.exitCode = await run(['verify', file]);
