import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { MAX_TOOL_OUTPUT_BYTES } from '../../../../src/agent/tools/tool';
import { TempWorkspace } from './fixture';

const posix = process.platform !== 'win32';
// Processes that left the process group are found through /proc.
const linux = process.platform === 'linux';

/** A killed process whose parent has not reaped it yet is a zombie, which signal 0 still reaches: not alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  if (!linux) return true;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function waitUntil(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return condition();
}

describe('run_command', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace({ 'hello.txt': 'hi\n' })));
  afterEach(() => ws.dispose());

  it('runs in the workspace root and reports the exit code with stdout and stderr', async () => {
    assert.deepStrictEqual(await ws.call('run_command', { command: 'cat hello.txt' }), { status: 'ok', output: 'exit code 0\nhi\n' });
    const failed = await ws.call('run_command', { command: 'echo out; echo err 1>&2; exit 3' });
    assert.strictEqual(failed.status, 'error');
    assert.match(failed.output, /^exit code 3\n/);
    assert.match(failed.output, /out\n/);
    assert.match(failed.output, /err\n/);
  });

  (posix ? it : it.skip)('kills the whole process group at the timeout', async function () {
    this.timeout(10_000);
    const pidFile = path.join(ws.root, 'child.pid');
    const started = Date.now();
    const result = await ws.call('run_command', { command: `sh -c 'echo $$ > child.pid; exec sleep 30' & echo started; sleep 30`, timeoutMs: 500 });
    assert.ok(Date.now() - started < 5000, 'the tool returns soon after the timeout');
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /^killed after the 500 ms timeout\nstarted\n/);
    const childPid = Number(fs.readFileSync(pidFile, 'utf8'));
    assert.ok(await waitUntil(() => !alive(childPid), 2000), `the background child ${childPid} was killed too`);
  });

  (posix ? it : it.skip)('kills a background child left running when the shell exits, and says so', async function () {
    this.timeout(10_000);
    const started = Date.now();
    // The shell waits for the child to write its pid: on a loaded machine it could exit (and the child be killed) first.
    const result = await ws.call('run_command', {
      command: `sh -c 'echo $$ > bg.pid.tmp && mv bg.pid.tmp bg.pid; exec sleep 30' & while [ ! -f bg.pid ]; do sleep 0.01; done; echo done`,
      timeoutMs: 20_000,
    });
    assert.ok(Date.now() - started < 5000, 'the tool returns when the shell exits, not at the timeout');
    assert.strictEqual(result.status, 'ok');
    assert.match(result.output, /^exit code 0\ndone\n/);
    if (linux) assert.match(result.output, /\[1 background process still running after the command exited was killed/);
    const childPid = Number(fs.readFileSync(path.join(ws.root, 'bg.pid'), 'utf8'));
    assert.ok(await waitUntil(() => !alive(childPid), 2000), `the background child ${childPid} was killed`);
  });

  describe('a process that left the process group (setsid)', () => {
    const pidOf = (output: string): number => Number(/^(\d+)$/m.exec(output)?.[1]);

    (linux ? it : it.skip)('does not hold the command past its timeout, and is killed', async function () {
      this.timeout(20_000);
      const started = Date.now();
      const result = await ws.call('run_command', { command: 'setsid sleep 42 & echo $!; sleep 30', timeoutMs: 1500 });
      assert.ok(Date.now() - started < 5000, `the tool returned after ${Date.now() - started} ms`);
      assert.match(result.output, /^killed after the 1500 ms timeout\n\d+\n/);
      assert.match(result.output, /\[2 more processes the command had started were killed with it\]/);
      assert.ok(await waitUntil(() => !alive(pidOf(result.output)), 2000), 'the escaped process was killed');
    });

    (linux ? it : it.skip)('does not hold the command after the shell exited normally, and is killed', async function () {
      this.timeout(20_000);
      const started = Date.now();
      const result = await ws.call('run_command', { command: 'setsid sleep infinity & echo $!' });
      assert.ok(Date.now() - started < 5000, `the tool returned after ${Date.now() - started} ms`);
      assert.strictEqual(result.status, 'ok');
      assert.match(result.output, /^exit code 0\n\d+\n\n\[1 background process still running/);
      assert.ok(await waitUntil(() => !alive(pidOf(result.output)), 2000), 'the escaped process was killed');
    });

    // The shell's output is identified by reading its descriptors as it starts, so it must not end at once.
    (linux ? it : it.skip)('is found by the output it holds even with its environment cleared', async function () {
      this.timeout(20_000);
      const result = await ws.call('run_command', { command: 'setsid env -i sleep 42 & echo $!; sleep 0.2' });
      assert.strictEqual(result.status, 'ok');
      assert.ok(await waitUntil(() => !alive(pidOf(result.output)), 2000), 'the escaped process was killed');
    });

    (linux ? it : it.skip)('does not hold a cancelled command, and is killed', async function () {
      this.timeout(20_000);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 500);
      const started = Date.now();
      const result = await ws.call(
        'run_command',
        { command: 'setsid sleep 42 & echo $!; sleep 30' },
        ws.ctx({ edits: false, commands: true }, controller.signal),
      );
      assert.ok(Date.now() - started < 5000, `the tool returned after ${Date.now() - started} ms`);
      assert.match(result.output, /^killed: the turn was cancelled\n\d+\n/);
      assert.ok(await waitUntil(() => !alive(pidOf(result.output)), 2000), 'the escaped process was killed');
    });

    (linux ? it : it.skip)('leaves the output written before the end whole', async function () {
      this.timeout(20_000);
      const result = await ws.call('run_command', { command: `setsid sleep 42 & node -e "process.stdout.write('x'.repeat(60000))"` });
      assert.strictEqual(result.status, 'ok');
      assert.strictEqual(/x{2,}/.exec(result.output)?.[0].length, 60000);
    });
  });

  it('caps the output and marks it truncated', async () => {
    const result = await ws.call('run_command', { command: `node -e "process.stdout.write('a'.repeat(200000))"` });
    assert.strictEqual(result.truncated, true);
    assert.ok(Buffer.byteLength(result.output) <= MAX_TOOL_OUTPUT_BYTES);
    assert.match(result.output, /^exit code 0\naaaa/);
  });

  it('stops the command when the turn is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const result = await ws.call('run_command', { command: 'sleep 30' }, ws.ctx({ edits: false, commands: true }, controller.signal));
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /^killed: the turn was cancelled/);
  });

  it('without the command permission runs nothing', async () => {
    const asked: string[] = [];
    for (const permissions of [{ edits: true, commands: false }, { ask: async (_kind: string, detail: string) => (asked.push(detail), false) }]) {
      const result = await ws.call('run_command', { command: 'echo x > ran.txt' }, ws.ctx(permissions));
      assert.deepStrictEqual(result, { status: 'error', output: 'permission to run commands was not granted; the command was not run' });
    }
    assert.deepStrictEqual(asked, ['echo x > ran.txt']);
    assert.strictEqual(ws.exists('ran.txt'), false);
  });
});
