// package.json's `contributes.languageModelTools` from the core's tools
// (src/extension/tools/toolContributions.ts, bundled on the fly with esbuild).
// `--write` replaces that one key in package.json; `--check` exits 1 when it differs.
// package.json is edited by hand too, so it is read just before the write and nothing else in it changes.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const manifestPath = path.join(root, 'package.json');
const mode = process.argv[2];
if (mode !== '--write' && mode !== '--check') {
  console.error('usage: node scripts/tool-contributions.mjs --write|--check');
  process.exit(2);
}

const bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-tools-'));
const bundle = path.join(bundleDir, 'toolContributions.cjs');
try {
  await esbuild.build({
    entryPoints: [path.join(root, 'src/extension/tools/toolContributions.ts')],
    outfile: bundle,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
  });
  const expected = createRequire(import.meta.url)(bundle).toolContributions();

  const text = fs.readFileSync(manifestPath, 'utf8');
  const manifest = JSON.parse(text);
  const current = manifest.contributes?.languageModelTools;
  if (JSON.stringify(current) === JSON.stringify(expected)) {
    console.log(`package.json: contributes.languageModelTools is up to date (${expected.length} tools)`);
  } else if (mode === '--check') {
    console.error('package.json: contributes.languageModelTools differs from the core tools; run node scripts/tool-contributions.mjs --write');
    process.exitCode = 1;
  } else {
    manifest.contributes = { ...manifest.contributes, languageModelTools: expected };
    fs.writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}${text.endsWith('\n') ? '\n' : ''}`);
    console.log(`package.json: wrote contributes.languageModelTools (${expected.length} tools)`);
  }
} finally {
  fs.rmSync(bundleDir, { recursive: true, force: true });
}
