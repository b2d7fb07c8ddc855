import * as esbuild from 'esbuild';
import * as path from 'path';
import { run } from '../../../src/cli/main';
import { TapeStore } from '../../../src/store/tapeStore';

export const ROOT = path.resolve(__dirname, '../../../..');
export const CLI = path.join(ROOT, 'dist', 'cli.js');

/**
 * Bundles just the CLI the way esbuild.mjs does, so child-process tests run the real `agent-tape`,
 * with its index worker beside it (`append` runs it; a stale one would be a different protocol).
 */
export async function buildCli(): Promise<void> {
  const node = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' } as const;
  await esbuild.build({ ...node, entryPoints: [path.join(ROOT, 'src/cli/main.ts')], outfile: CLI, banner: { js: '#!/usr/bin/env node' } });
  await esbuild.build({ ...node, entryPoints: [path.join(ROOT, 'src/store/indexWorker.ts')], outfile: path.join(ROOT, 'dist', 'indexWorker.js') });
}

/** The CLI in this process (no bundle), with what it printed. */
export async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** The session ids of a tape the CLI wrote, sorted: read-only, as a user's other window would. */
export async function sessionsOf(file: string): Promise<string[]> {
  const store = await TapeStore.open(file, { readOnly: true });
  try {
    return store
      .sessions()
      .map((s) => s.sessionId)
      .sort();
  } finally {
    await store.close();
  }
}
