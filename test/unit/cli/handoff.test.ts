import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { buildCli, cli, CLI } from './build';

describe('agent-tape handoff', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-handoff-'));
    tape = path.join(dir, 'demo.tape.sqlite');
    const s = await TapeStore.open(tape);
    await s.append('s1', {
      kind: 'message',
      name: 'message/user',
      payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: 'Fix the build' },
    });
    await s.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('appends a handoff/<name> anchor with {summary, state}, prints its entry id, and context starts from it', async () => {
    const r = await cli('handoff', tape, '--session', 's1', '--name', 'build-fix', '--summary', 'The build is fixed.', '--state', '{"next":"release"}');
    assert.deepStrictEqual(r, { code: 0, out: '3\n', err: '' });
    const s = await TapeStore.open(tape, { readOnly: true });
    try {
      assert.deepStrictEqual(s.getEntry('s1', 3)?.payload, {
        name: 'handoff/build-fix',
        state: { summary: 'The build is fixed.', state: { next: 'release' } },
      });
    } finally {
      await s.close();
    }
    const ctx = await cli('context', tape, '--session', 's1', '--json');
    const parsed = JSON.parse(ctx.out) as { anchorEntryId: number; messages: { content: string }[] };
    assert.strictEqual(parsed.anchorEntryId, 3);
    assert.deepStrictEqual(
      parsed.messages.map((m) => m.content),
      [
        '[Checkpoint handoff/build-fix at entry 3: the conversation before this point is summarised here.]\n\nThe build is fixed.\n\nState:\nstate:\n  next: release',
      ],
    );
  });

  it('bad input exits 2 with a clear message and writes nothing', async () => {
    const cases: [string[], RegExp][] = [
      [['handoff', tape, '--name', 'x', '--summary', 's'], /--session is required/],
      [['handoff', tape, '--session', 's1', '--summary', 's'], /--name is required/],
      [['handoff', tape, '--session', 's1', '--name', 'x'], /--summary is required/],
      [
        ['handoff', tape, '--session', 's1', '--name', 'Bad Name', '--summary', 's'],
        /handoff name "Bad Name": ✖ use lowercase words and digits joined by "-" or "_"/,
      ],
      [['handoff', tape, '--session', 's1', '--name', 'x', '--summary', '  '], /a handoff needs a non-empty summary/],
      [['handoff', tape, '--session', 's1', '--name', 'x', '--summary', 's', '--state', '{oops'], /--state is not JSON/],
      [['handoff', tape, '--session', 's1', '--name', 'x', '--summary', 's', '--state', '[1]'], /--state must be a JSON object/],
      [['handoff', tape, '--session', 'nope', '--name', 'x', '--summary', 's'], /no session "nope" in this tape; sessions: s1/],
      [['handoff', path.join(dir, 'missing.tape.sqlite'), '--session', 's1', '--name', 'x', '--summary', 's'], /missing\.tape\.sqlite: does not exist/],
      [['handoff', path.join(dir, 'x.tape.jsonl'), '--session', 's1', '--name', 'x', '--summary', 's'], /handoff writes to \*\.tape\.sqlite files/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await cli(...argv);
      assert.strictEqual(r.code, 2, argv.join(' '));
      assert.match(r.err, pattern, argv.join(' '));
      assert.strictEqual(r.out, '');
    }
    assert.strictEqual(fs.existsSync(path.join(dir, 'missing.tape.sqlite')), false);
    const s = await TapeStore.open(tape, { readOnly: true });
    try {
      assert.strictEqual(s.headEntryId('s1'), 2);
    } finally {
      await s.close();
    }
  });

  it('is listed in --help and works from the bundled binary', async () => {
    assert.match((await cli('--help')).out, /handoff <tape\.sqlite> --session S --name N --summary TEXT \[--state JSON\]/);
    await buildCli();
    const r = spawnSync(process.execPath, [CLI, 'handoff', tape, '--session', 's1', '--name', 'n1', '--summary', 'from the binary'], { encoding: 'utf8' });
    assert.deepStrictEqual([r.status, r.stdout, r.stderr], [0, '3\n', '']);
  });
});
