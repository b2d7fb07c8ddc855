import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { buildCli, CLI, ROOT } from './build';

const SAMPLE = path.join(ROOT, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');
const GOOD_WASM = require.resolve('sql.js/dist/sql-wasm.wasm');

/** The bundled CLI as an install lays it out: `cli.js` with `sql-wasm.wasm` beside it, or not. */
describe('agent-tape with a broken install', function () {
  this.timeout(30_000);
  let dir: string;
  before(buildCli);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-install-'));
    fs.copyFileSync(CLI, path.join(dir, 'cli.js'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const info = () => spawnSync(process.execPath, [path.join(dir, 'cli.js'), 'info', SAMPLE], { encoding: 'utf8', timeout: 20_000 });

  it('a missing or damaged sql-wasm.wasm is one clear error naming the file, exit 1, no crash', () => {
    const wasm = path.join(dir, 'sql-wasm.wasm');
    let r = info();
    assert.strictEqual(r.status, 1);
    assert.strictEqual(
      r.stderr,
      `agent-tape: could not load SQLite (sql.js WASM): ${wasm} is missing; reinstall Agent Tape (or run the build, which copies it there)\n`,
    );
    fs.writeFileSync(wasm, fs.readFileSync(GOOD_WASM).subarray(0, 1000));
    r = info();
    assert.strictEqual(r.status, 1);
    assert.strictEqual(
      r.stderr,
      `agent-tape: could not load SQLite (sql.js WASM): ${wasm} is damaged (not a valid WebAssembly module); reinstall Agent Tape\n`,
    );
    fs.copyFileSync(GOOD_WASM, wasm);
    r = info();
    assert.strictEqual(r.status, 0, r.stderr);
    assert.match(r.stdout, /inspector-sample: head 25/);
  });
});
