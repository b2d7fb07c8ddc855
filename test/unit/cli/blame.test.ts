import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { call, ingested, prompt } from '../blame/blameTape';
import { cli } from './build';

const SESSION = 'claude-code:s1';

describe('agent-tape blame', function () {
  this.timeout(30_000);
  let dir: string;
  let ws: string;
  let tape: string;
  let file: string;
  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-blame-')));
    ws = path.join(dir, 'ws');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    file = path.join(ws, 'src', 'f.txt');
    fs.writeFileSync(file, 'by hand\nagent 1\nagent 2\n');
    tape = path.join(dir, 'w.tape.sqlite');
    const store = await TapeStore.open(tape);
    // The file before the edit: the Edit replaced its last line.
    await store.appendMany('claude-code:s0', [
      ...ingested('claude-code:s0', 'claude-code', '/tmp/clone'),
      ...call({ sessionId: 'claude-code:s0', turnId: 't' }, 'Write', { file_path: 'src/f.txt', content: 'by hand\nold\n' }),
    ]);
    const s = { sessionId: SESSION, turnId: 't' };
    await store.appendMany(SESSION, [
      ...ingested(SESSION, 'claude-code', '/tmp/clone'),
      prompt(s, 'write the\u001b[31m agent lines'),
      ...call(s, 'Edit', { file_path: '/tmp/clone/src/f.txt', old_string: 'old\n', new_string: 'agent 1\nagent 2\n' }),
      ...call(s, 'Write', { file_path: '/tmp/clone/src/f.txt', content: 'by hand\nold\n' }, 'error'),
    ]);
    await store.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const origin = {
    sessionId: SESSION,
    entryId: 4,
    agent: 'claude-code',
    model: 'model-x',
    turn: 1,
    prompt: 'write the\u001b[31m agent lines',
  };

  it('prints ranges covering every line with exactly the origin fields (--json)', async () => {
    const r = await cli('blame', tape, file, '--workspace', ws, '--json');
    assert.strictEqual(r.code, 0, r.err);
    const ranges = JSON.parse(r.out) as { origin: { at: string } | null }[];
    assert.ok(r.out.includes('\\u001b'), 'control characters are escaped in JSON');
    assert.deepStrictEqual(
      ranges.map((x) => ({ ...x, origin: x.origin && { ...x.origin, at: Number.isNaN(Date.parse(x.origin.at)) ? 'not a time' : 'a time' } })),
      [
        {
          startLine: 1,
          endLine: 1,
          origin: { sessionId: 'claude-code:s0', entryId: 3, agent: 'claude-code', model: 'model-x', turn: null, prompt: null, at: 'a time' },
        },
        { startLine: 2, endLine: 3, origin: { ...origin, at: 'a time' } },
      ],
    );
  });

  it('clips the ranges to --lines, resolves a relative file from the current directory, and prints a line per range for people', async () => {
    const cwd = process.cwd();
    process.chdir(ws);
    try {
      const r = await cli('blame', tape, 'src/f.txt', '--json', '--lines', '2-2');
      assert.strictEqual(r.code, 0, r.err);
      assert.deepStrictEqual(
        (JSON.parse(r.out) as { startLine: number; endLine: number }[]).map((x) => [x.startLine, x.endLine]),
        [[2, 2]],
      );
      const human = await cli('blame', tape, 'src/f.txt');
      assert.strictEqual(human.code, 0, human.err);
      const lines = human.out.trimEnd().split('\n');
      assert.strictEqual(lines.length, 2);
      // The session is titled by its first prompt, so the prompt is not printed twice.
      assert.match(lines[1], /^2-3 {2}claude-code {2}write the\[31m agent lines {2}turn 1 {2}\d{4}-\d\d-\d\d \d\d:\d\d$/);
      assert.ok(!human.out.includes('\u001b'), 'no control character reaches the terminal');
    } finally {
      process.chdir(cwd);
    }
  });

  it('says a person or the time before the tape wrote lines no agent on the tape wrote', async () => {
    fs.writeFileSync(path.join(ws, 'other.txt'), 'a\nb\n');
    const r = await cli('blame', tape, path.join(ws, 'other.txt'), '--workspace', ws);
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, '1-2  (no agent on the tape wrote these lines)\n');
    const json = await cli('blame', tape, path.join(ws, 'other.txt'), '--workspace', ws, '--json');
    assert.deepStrictEqual(JSON.parse(json.out), [{ startLine: 1, endLine: 2, origin: null }]);
  });

  it('exits 2 with a clear message for a file outside the workspace, missing, not regular, too big, or bad --lines', async () => {
    fs.writeFileSync(path.join(dir, 'outside.txt'), 'x\n');
    fs.symlinkSync(path.join(dir, 'outside.txt'), path.join(ws, 'link.txt'));
    execFileSync('mkfifo', [path.join(ws, 'fifo')]);
    fs.writeFileSync(path.join(ws, 'big.txt'), '');
    fs.truncateSync(path.join(ws, 'big.txt'), 4 * 1024 * 1024 + 1);
    const cases: [string[], RegExp][] = [
      [[path.join(dir, 'outside.txt')], /is not a file of the workspace/],
      [[path.join(ws, 'link.txt')], /is not a file of the workspace/],
      [[path.join(ws, 'missing.txt')], /does not exist/],
      [[path.join(ws, 'src')], /directory/],
      [[path.join(ws, 'fifo')], /FIFO/],
      [[path.join(ws, 'big.txt')], /over the 4 MiB limit/],
      [[file, '--lines', '3-1'], /--lines must be A-B/],
      [[file, '--lines', 'two'], /--lines must be A-B/],
      [[file, '--lines', '0-1'], /--lines must be A-B/],
      [[file, '--lines', '9-12'], /the file has 3 lines/],
    ];
    for (const [args, message] of cases) {
      const r = await cli('blame', tape, ...args, '--workspace', ws);
      assert.strictEqual(r.code, 2, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message, args.join(' '));
      assert.strictEqual(r.out, '');
    }
  });
});
