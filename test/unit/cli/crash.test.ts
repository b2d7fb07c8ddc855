import * as assert from 'assert';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { assertAcknowledgedKept } from '../store/helpers';
import { buildCli, CLI } from './build';

const TRIALS = 50;

interface Trial {
  /** entryId -> the content of the line it acknowledged */
  acked: Map<number, string>;
}

/**
 * One writer process: streams entries into `agent-tape append` and is SIGKILLed at a random moment
 * (while writing, while fsyncing, during the close-time checkpoint when stdin ended early).
 */
function runTrial(file: string, trial: number, firstId: number): Promise<Trial> {
  return new Promise((resolve, reject) => {
    const durable = trial % 3 === 0;
    const child = spawn(process.execPath, [CLI, 'append', file, '--session', 's', ...(durable ? ['--durable'] : [])], { stdio: ['pipe', 'pipe', 'pipe'] });
    const acked = new Map<number, string>();
    const sent: string[] = [];
    let out = '';
    let err = '';
    // Most kills land while appends stream (timed from the first acknowledgement, since start-up
    // time varies with load); every tenth lands during start-up (open, replay, lock takeover).
    const arm = (ms: number): NodeJS.Timeout => setTimeout(() => child.kill('SIGKILL'), ms);
    let timer: NodeJS.Timeout | undefined = trial % 10 === 0 ? arm(Math.random() * 300) : undefined;
    child.stdout.on('data', (d: Buffer) => {
      timer ??= arm(Math.random() * 250);
      out += d.toString();
      let nl: number;
      while ((nl = out.indexOf('\n')) >= 0) {
        const { entryId } = JSON.parse(out.slice(0, nl)) as { entryId: number };
        out = out.slice(nl + 1);
        // Every line is a new entry, in order: the k-th acknowledged id belongs to the k-th line.
        acked.set(entryId, sent[entryId - firstId]);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdin.on('error', () => undefined); // EPIPE once killed
    let n = 0;
    const feed = setInterval(() => {
      for (let i = 0; i < 20; i++) {
        const content = `trial ${trial} line ${n++} ${'x'.repeat(200)}`;
        sent.push(content);
        child.stdin.write(
          `${JSON.stringify({ kind: 'message', name: 'message/user', payload: { messageId: `t${trial}-${n}`, role: 'user', status: 'sent', orderSeq: n, content } })}\n`,
        );
      }
      if (trial % 2 === 1 && n >= 200) {
        clearInterval(feed);
        child.stdin.end();
      }
    }, 2);
    child.on('exit', (code, signal) => {
      clearInterval(feed);
      clearTimeout(timer);
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`trial ${trial}: writer exited ${code}: ${err}`));
      else resolve({ acked });
    });
  });
}

describe('crash safety through the CLI', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-crash-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`SPEC 3.17: a crash (SIGKILL) at any point loses no acknowledged append and leaves an openable tape (${TRIALS} trials)`, async () => {
    // Two tapes side by side, one writer each, to use both cores.
    const acked = await Promise.all([0, 1].map((lane) => trials(path.join(dir, `crash-${lane}.tape.sqlite`), lane)));
    const totalAcked = acked[0] + acked[1];
    assert.ok(totalAcked > TRIALS * 10, `the writers acknowledged appends before dying (${totalAcked})`);
  });

  async function trials(file: string, lane: number): Promise<number> {
    const expected = new Map<number, string>();
    let totalAcked = 0;
    for (let trial = lane; trial < TRIALS; trial += 2) {
      const probe = fs.existsSync(file) ? await TapeStore.open(file, { readOnly: true }) : null;
      const head = probe?.headEntryId('s') ?? 0;
      await probe?.close();
      const { acked } = await runTrial(file, trial, head === 0 ? 2 : head + 1);
      totalAcked += acked.size;
      for (const [id, content] of acked) expected.set(id, content);
      // Must open (writable: the dead writer's lock is taken over) and hold every acknowledged entry.
      const store = await TapeStore.open(file);
      try {
        assertAcknowledgedKept(store, expected, trial);
      } finally {
        await store.close();
      }
    }
    return totalAcked;
  }
});
