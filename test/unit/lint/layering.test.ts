import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// Compiled to out/test/unit/lint (or out-<name>/...): the repository is four levels up.
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const bin = (name: string): string => path.join(ROOT, 'node_modules', '.bin', name);

/**
 * The lint's own checks run on a temporary copy of the sources with one forbidden import added:
 * each must fail and name the rule and the file. The copy keeps the real tree untouched.
 */
describe('the lint enforces the layers (in a temporary copy of the tree)', function () {
  this.timeout(120_000);
  let copy: string;

  before(() => {
    copy = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-lint-'));
    for (const f of ['src', 'webview', 'tsconfig.json', '.dependency-cruiser.cjs', 'eslint.config.mjs', 'package.json']) {
      fs.cpSync(path.join(ROOT, f), path.join(copy, f), { recursive: true });
    }
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'), 'dir');
  });

  after(() => fs.rmSync(copy, { recursive: true, force: true }));

  /** Adds `file` with `text`, runs `cmd` on it in the copy, removes it: the exit status and output. */
  function lintWith(file: string, text: string, cmd: string, args: string[]): { status: number | null; output: string } {
    const at = path.join(copy, file);
    fs.writeFileSync(at, text);
    try {
      const r = spawnSync(cmd, [...args, file], { cwd: copy, encoding: 'utf8' });
      return { status: r.status, output: `${r.stdout}${r.stderr}` };
    } finally {
      fs.rmSync(at);
    }
  }

  const depcruise = (file: string, text: string) => lintWith(file, text, bin('depcruise'), ['--config', '.dependency-cruiser.cjs', '--output-type', 'err']);
  const eslint = (file: string, text: string) => lintWith(file, text, bin('eslint'), ['--max-warnings', '0']);

  it('refuses vscode outside src/extension (ESLint)', () => {
    const r = eslint('src/tape/forbiddenImport.ts', "import * as vscode from 'vscode';\n\nexport const version = vscode.version;\n");
    assert.notStrictEqual(r.status, 0, r.output);
    assert.match(r.output, /forbiddenImport\.ts[\s\S]*Only src\/extension imports vscode[\s\S]*no-restricted-imports/);
  });

  it('accepts vscode in src/extension (ESLint)', () => {
    const r = eslint('src/extension/allowedImport.ts', "import * as vscode from 'vscode';\n\nexport const version = vscode.version;\n");
    assert.strictEqual(r.status, 0, r.output);
  });

  for (const [from, to, target] of [
    ['src/tape', 'src/agent', '../agent/loop'],
    ['src/store', 'src/agent', '../agent/loop'],
    ['src/agent', 'src/extension', '../extension/settings'],
    ['src/replay', 'src/agent', '../agent/loop'],
    ['src/agent', 'src/rerun', '../rerun/rerun'],
  ] as const) {
    it(`refuses an import of ${to} from ${from} (dependency-cruiser)`, () => {
      const file = `${from}/forbiddenImport.ts`;
      const r = depcruise(file, `import * as other from '${target}';\n\nexport const used = other;\n`);
      assert.notStrictEqual(r.status, 0, r.output);
      assert.match(r.output, new RegExp(`not-in-allowed: ${file.replace(/[/.]/g, '\\$&')} → ${to}/`));
    });
  }

  for (const [file, target, rule] of [
    ['src/tape/forbiddenImport.ts', './search/searchTokens', 'tape-kernel-below-analyses'],
    ['src/tape/projections/forbiddenImport.ts', '../audit/compactionAudit', 'tape-kernel-below-analyses'],
    ['src/tape/audit/forbiddenImport.ts', '../comparison/sessionComparison', 'tape-analyses-apart'],
  ] as const) {
    it(`refuses ${file} importing ${target} (${rule})`, () => {
      const r = depcruise(file, `import * as other from '${target}';\n\nexport const used = other;\n`);
      assert.notStrictEqual(r.status, 0, r.output);
      assert.match(r.output, new RegExp(`${rule}: ${file.replace(/[/.]/g, '\\$&')} →`));
    });
  }

  // Only imports that reach no npm package: the copy's node_modules is a link out of it, which the
  // layer rules would refuse.
  it('lets an analysis of src/tape read the kernel and usage figures, and the kernel hold an analysis type', () => {
    const analysis = depcruise(
      'src/tape/audit/allowedImport.ts',
      "import { oneLine } from '../oneLine';\nimport { wholeInputOf } from '../usage/usageFigures';\n\nexport const used = [oneLine, wholeInputOf];\n",
    );
    assert.strictEqual(analysis.status, 0, analysis.output);
    const r = depcruise('src/tape/allowedImport.ts', "import type { SearchToken } from './search/searchTokens';\n\nexport type Used = SearchToken;\n");
    assert.strictEqual(r.status, 0, r.output);
  });

  it('refuses an import cycle, type-only ones too (dependency-cruiser)', () => {
    fs.writeFileSync(path.join(copy, 'src/tape/cycleA.ts'), "import type { B } from './cycleB';\n\nexport interface A { b?: B }\n");
    try {
      const r = depcruise('src/tape/cycleB.ts', "import type { A } from './cycleA';\n\nexport interface B { a?: A }\n");
      assert.notStrictEqual(r.status, 0, r.output);
      assert.match(r.output, /no-cycles: src\/tape\/cycle([AB])\.ts →\s+src\/tape\/cycle(?!\1)[AB]\.ts →\s+src\/tape\/cycle\1\.ts/);
    } finally {
      fs.rmSync(path.join(copy, 'src/tape/cycleA.ts'));
    }
  });
});
