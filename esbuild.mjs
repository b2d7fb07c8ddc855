// Builds the bundles: extension host (CommonJS, `vscode` external), the `agent-tape` CLI and the
// two webviews (About, Tape Inspector; browser). `--production` minifies; `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const copyWasm = {
  name: 'copy-sql-wasm',
  setup(build) {
    build.onEnd(() => {
      fs.mkdirSync('dist', { recursive: true });
      fs.copyFileSync(path.join('node_modules', 'sql.js', 'dist', 'sql-wasm.wasm'), path.join('dist', 'sql-wasm.wasm'));
    });
  },
};

// The inspector's webview may load only from the extension's own folders (CSP font-src/style-src =
// cspSource), so the codicon font and its stylesheet are served from dist/ beside the bundle.
const copyCodicons = {
  name: 'copy-codicons',
  setup(build) {
    build.onEnd(() => {
      fs.mkdirSync('dist', { recursive: true });
      for (const f of ['codicon.css', 'codicon.ttf']) fs.copyFileSync(path.join('node_modules', '@vscode', 'codicons', 'dist', f), path.join('dist', f));
    });
  },
};

const reportErrors = {
  name: 'report',
  setup(build) {
    build.onEnd((r) => {
      for (const e of r.errors) console.error(`✘ ${e.location?.file ?? ''}:${e.location?.line ?? ''} ${e.text}`);
      if (watch) console.log(`[watch] ${build.initialOptions.outfile} built (${r.errors.length} errors)`);
    });
  },
};

const common = { bundle: true, minify: production, sourcemap: true, sourcesContent: false, logLevel: 'warning', plugins: [reportErrors] };
const node = { ...common, platform: 'node', target: 'node20', format: 'cjs' };

const configs = [
  { ...node, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [...common.plugins, copyWasm] },
  { ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } },
  // The CLI's full-text index worker (src/store/parallelIndex.ts), beside the CLI.
  { ...node, entryPoints: ['src/store/indexWorker.ts'], outfile: 'dist/indexWorker.js' },
  { ...common, platform: 'browser', target: 'es2022', format: 'iife', entryPoints: ['webview/main.ts'], outfile: 'dist/webview.js' },
  {
    ...common,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    entryPoints: ['webview/inspector/main.ts'],
    outfile: 'dist/inspector.js',
    plugins: [...common.plugins, copyCodicons],
  },
];

if (watch) {
  for (const c of configs) await (await esbuild.context(c)).watch();
} else {
  await Promise.all(configs.map((c) => esbuild.build(c)));
}
