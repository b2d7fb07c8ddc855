import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { assertAcknowledgedKept, tempDir } from './helpers';

const TRIALS = 24;
const STORE_MODULE = path.resolve(__dirname, '../../../src/store/tapeStore.js');

/**
 * A writer that checkpoints all the time (an 8 KiB threshold plus an explicit checkpoint every
 * ten appends) and prints each acknowledged entry id; it is SIGKILLed at a random moment, so
 * kills land in snapshot writes, renames, journal rotations and their fsyncs.
 */
const WRITER = `
const { TapeStore } = require(${JSON.stringify(STORE_MODULE)});
(async () => {
  const s = await TapeStore.open(process.argv[1], { checkpointBytes: 8192, groupCommitMs: 1 });
  for (let i = 0; ; i++) {
    const content = 'trial ' + process.argv[2] + ' entry ' + i + ' ' + 'x'.repeat(400);
    const r = await s.append('s', { kind: 'message', name: 'message/user', payload: { messageId: 'm' + process.argv[2] + '-' + i, role: 'user', status: 'sent', orderSeq: i, content } });
    process.stdout.write(r.entry.entryId + ' ' + content + '\\n');
    if (i % 10 === 9) await s.checkpoint();
  }
})();
`;

function runTrial(file: string, trial: number): Promise<Map<number, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', WRITER, file, String(trial)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acked = new Map<number, string>();
    let out = '';
    let err = '';
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      timer ??= setTimeout(() => child.kill('SIGKILL'), Math.random() * 300);
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, nl);
        out = out.slice(nl + 1);
        const space = line.indexOf(' ');
        acked.set(Number(line.slice(0, space)), line.slice(space + 1));
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (signal !== 'SIGKILL') reject(new Error(`trial ${trial}: writer exited ${code}: ${err}`));
      else resolve(acked);
    });
  });
}

describe('crash safety of checkpoints', function () {
  this.timeout(120_000);

  it(`SPEC 3.17: a SIGKILL during checkpoints loses no acknowledged append, and the next open clears the temp files (${TRIALS} trials)`, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'c.tape.sqlite');
    const expected = new Map<number, string>();
    let checkpointsInterrupted = 0;
    try {
      for (let trial = 0; trial < TRIALS; trial++) {
        for (const [id, content] of await runTrial(file, trial)) expected.set(id, content);
        const leftovers = fs.readdirSync(dir).filter((f) => f.includes('.tmp-'));
        if (leftovers.length) checkpointsInterrupted++;
        const store = await TapeStore.open(file);
        try {
          assert.deepStrictEqual(store.openReport.removedTempFiles.sort(), leftovers.sort());
          assertAcknowledgedKept(store, expected, trial);
        } finally {
          await store.close();
        }
        assert.deepStrictEqual(
          fs.readdirSync(dir).filter((f) => f.includes('.tmp-')),
          [],
        );
      }
      assert.ok(expected.size > TRIALS * 5, `the writers acknowledged appends before dying (${expected.size})`);
      // Not asserted (timing decides), but reported: how often a kill left a half-written checkpoint.
      console.log(`      ${expected.size} acknowledged entries; ${checkpointsInterrupted} of ${TRIALS} kills left checkpoint temp files`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
