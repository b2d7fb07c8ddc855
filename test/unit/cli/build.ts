import * as esbuild from 'esbuild';
import * as path from 'path';

export const ROOT = path.resolve(__dirname, '../../../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

/** Bundles just the CLI the way esbuild.mjs does, so child-process tests run the real `agent-tape`. */
export async function buildCli(): Promise<void> {
  await esbuild.build({
    entryPoints: [path.join(ROOT, 'src/cli/main.ts')],
    outfile: CLI,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'warning',
  });
}
