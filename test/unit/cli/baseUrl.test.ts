import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cli } from './build';

describe('agent-tape run and compact: --base-url', () => {
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-base-url-'));
    tape = path.join(dir, 'agent.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const command of ['run', 'compact']) {
    const argv = (baseUrl: string) => [
      command,
      tape,
      '--session',
      's1',
      '--base-url',
      baseUrl,
      '--model',
      'm',
      ...(command === 'run' ? ['--workspace', dir, 'hi'] : []),
    ];

    it(`${command}: a user name or password in the address exits 2 before anything is opened, never showing the password`, async () => {
      const r = await cli(...argv('http://me:hunter2@127.0.0.1:9/v1'));
      assert.strictEqual(r.code, 2, r.err);
      assert.match(r.err, /--base-url: "http:\/\/…@127\.0\.0\.1:9\/v1" holds a user name or password/);
      assert.ok(!r.err.includes('hunter2') && !r.out.includes('hunter2'), r.err);
      assert.strictEqual(fs.existsSync(tape), false);
    });

    it(`${command}: plain http to another host exits 2, saying to use https`, async () => {
      const r = await cli(...argv('http://192.168.1.5:11434/v1'));
      assert.strictEqual(r.code, 2, r.err);
      assert.match(
        r.err,
        /--base-url: "http:\/\/192\.168\.1\.5:11434\/v1" uses plain http to 192\.168\.1\.5:11434, .*; use https \(plain http is allowed only for localhost, 127\.0\.0\.0\/8 and ::1\)/,
      );
      assert.strictEqual(fs.existsSync(tape), false);
    });
  }
});
