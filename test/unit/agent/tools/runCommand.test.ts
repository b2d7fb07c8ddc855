import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { MAX_TOOL_OUTPUT_BYTES } from '../../../../src/agent/tools/tool';
import { TempWorkspace } from './fixture';

const posix = process.platform !== 'win32';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
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

  (posix ? it : it.skip)('kills a background child that keeps the output open after the shell has exited', async function () {
    this.timeout(10_000);
    const started = Date.now();
    const result = await ws.call('run_command', { command: `sh -c 'echo $$ > bg.pid; exec sleep 30' & echo done`, timeoutMs: 500 });
    assert.ok(Date.now() - started < 5000, 'the tool returns soon after the timeout');
    assert.match(result.output, /^killed after the 500 ms timeout\ndone\n/);
    const childPid = Number(fs.readFileSync(path.join(ws.root, 'bg.pid'), 'utf8'));
    assert.ok(await waitUntil(() => !alive(childPid), 2000), `the background child ${childPid} was killed`);
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
