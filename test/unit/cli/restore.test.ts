import { WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { Entry } from '../../../src/tape/entry';
import { checkpointOf, restoredOf } from '../../../src/tape/workspaceCheckpoint';
import { fakeServerPerTest } from '../../support/agentCliFixture';
import { runCli } from '../../support/cliProcess';
import type { FakeReply } from '../../support/fakeOpenAiServer';
import { buildCli } from './build';
import { dirDigest } from '../../support/dirDigest';

const SESSION = 's1';

/** The workspace's files (not its .git), compared byte for byte. */
const digest = (dir: string): Record<string, string> => dirDigest(dir, (rel) => rel === '.git');

/** The test's own git, reading without writing (no optional locks), with no user configuration. */
function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_OPTIONAL_LOCKS: '0' },
  });
}

const EDIT = Buffer.from('line one\r\nline two\r\nno newline at the end');
const GONE = Buffer.from([0x00, 0x01, 0xff, 0x0d, 0x0a, 0x42]);

describe('agent-tape restore (the bundled CLI after a run against a scripted OpenAI-compatible server)', function () {
  this.timeout(120_000);
  let dir: string;
  let ws: string;
  let tape: string;

  before(buildCli);
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-restore-'));
    ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'edit.txt'), EDIT);
    fs.writeFileSync(path.join(ws, 'gone.bin'), GONE);
    fs.writeFileSync(path.join(ws, 'keep.md'), '# kept\n');
    tape = path.join(dir, 'agent.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const serve = fakeServerPerTest();

  /** One turn: apply_edit of edit.txt, then run_command creating made.txt and deleting gone.bin, then an answer. */
  const EDIT_CREATE_DELETE: FakeReply[] = [
    {
      stream: [
        { text: 'Editing.' },
        { toolCall: { index: 0, id: 'e1', name: 'apply_edit', arguments: JSON.stringify({ path: 'edit.txt', oldText: 'line two', newText: 'LINE 2' }) } },
      ],
    },
    {
      stream: [{ toolCall: { index: 0, id: 'c1', name: 'run_command', arguments: JSON.stringify({ command: "printf 'made\\n' > made.txt && rm gone.bin" }) } }],
    },
    { stream: [{ text: 'Done.' }] },
  ];

  async function runTurn(replies: FakeReply[], extra: string[] = ['--allow-edits', '--allow-commands'], tapeFile = tape) {
    const srv = await serve(replies);
    const args = [
      'run',
      tapeFile,
      '--session',
      SESSION,
      '--base-url',
      srv.baseURL,
      '--model',
      'fake-model',
      '--workspace',
      ws,
      ...extra,
      '--',
      'change the files',
    ];
    const r = await runCli(args);
    assert.strictEqual(r.code, 0, r.err);
    return r;
  }
  const restore = (at: number, extra: string[] = [], tapeFile = tape) =>
    runCli(['restore', tapeFile, '--session', SESSION, '--at', String(at), '--workspace', ws, ...extra]);
  const log = async (tapeFile = tape): Promise<Entry[]> => {
    const r = await runCli(['log', tapeFile, '--session', SESSION, '--json']);
    assert.strictEqual(r.code, 0, r.err);
    return r.out
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry);
  };
  const turnStartOf = (all: Entry[]) => all.find((e) => e.name === 'turn/start')!.entryId;

  it('a turn edits, creates and deletes; restore --at its turn/start shows them (--dry-run changes nothing), then brings all three back byte for byte, once', async () => {
    const original = digest(ws);
    const run = await runTurn(EDIT_CREATE_DELETE);
    assert.match(run.err, /\[checkpoint\] 3 files changed \(\+2 -1\)/);
    assert.strictEqual(fs.readFileSync(path.join(ws, 'edit.txt'), 'utf8'), 'line one\r\nLINE 2\r\nno newline at the end');
    assert.ok(fs.existsSync(path.join(ws, 'made.txt')) && !fs.existsSync(path.join(ws, 'gone.bin')));
    assert.ok(fs.existsSync(path.join(dir, 'agent.tape.sqlite.checkpoints', 'HEAD')), 'the store is beside the tape');
    const afterRun = digest(ws);
    const ran = await log();
    const turnStart = turnStartOf(ran);
    const [start, end] = ran.map(checkpointOf).filter((c) => c !== null);
    assert.deepStrictEqual([start.reason, end.reason], ['turn_start', 'turn_end']);
    assert.deepStrictEqual(
      end.files.map((f) => [f.path, f.change]),
      [
        ['edit.txt', 'modified'],
        ['gone.bin', 'deleted'],
        ['made.txt', 'added'],
      ],
    );

    const dry = await restore(turnStart, ['--dry-run', '--json']);
    assert.strictEqual(dry.code, 0, dry.err);
    const plan = JSON.parse(dry.out) as Record<string, unknown>;
    assert.deepStrictEqual(
      [plan.dryRun, plan.restored, plan.checkpointId, plan.changed, plan.created, plan.removed, plan.leftAlone],
      [true, false, start.checkpointId, ['edit.txt'], ['gone.bin'], ['made.txt'], []],
    );
    assert.deepStrictEqual(digest(ws), afterRun, '--dry-run changed no file');
    assert.strictEqual((await log()).length, ran.length, '--dry-run appended nothing');

    const human = await restore(turnStart);
    assert.strictEqual(human.code, 0, human.err);
    assert.match(human.out, new RegExp(`^checkpoint ${start.checkpointId.slice(0, 12)} \\(entry \\d+\\)\\n`));
    assert.match(human.out, /^ {2}changed: edit\.txt$/m);
    assert.match(human.out, /^ {2}created: gone\.bin$/m);
    assert.match(human.out, /^ {2}removed: made\.txt$/m);
    const undo = /restored; recorded as entry (\d+) \(undo: restore --at (\d+)\)/.exec(human.out);
    assert.ok(undo, human.out);
    assert.deepStrictEqual(digest(ws), original, 'every file is back, byte for byte');
    assert.deepStrictEqual(fs.readFileSync(path.join(ws, 'edit.txt')), EDIT);
    assert.deepStrictEqual(fs.readFileSync(path.join(ws, 'gone.bin')), GONE);

    const restoredLog = await log();
    const [restoredEntry] = restoredLog.filter((e) => e.name === WORKSPACE_RESTORED);
    assert.strictEqual(restoredEntry.entryId, Number(undo[1]));
    assert.deepStrictEqual(restoredOf(restoredEntry), {
      fromCheckpointId: end.checkpointId,
      toCheckpointId: start.checkpointId,
      atEntryId: turnStart,
      changed: ['edit.txt'],
      created: ['gone.bin'],
      removed: ['made.txt'],
      omitted: 0,
      workspace: { key: end.workspace!.key, root: fs.realpathSync(ws) },
    });
    assert.deepStrictEqual(start.workspace, end.workspace);
    const before = restoredLog.find((e) => e.entryId === Number(undo[2]))!;
    assert.deepStrictEqual([before.name, checkpointOf(before)?.reason], [WORKSPACE_CHECKPOINT, 'before_restore']);

    const again = await restore(turnStart);
    assert.strictEqual(again.code, 0, again.err);
    assert.match(again.out, /no file differs/);
    assert.match(again.out, /nothing to restore/);
    assert.deepStrictEqual(digest(ws), original);
    assert.strictEqual((await log()).length, restoredLog.length, 'restoring twice appends nothing the second time');

    // And the restore can be undone with the entry it names.
    const undone = await restore(Number(undo[2]), ['--json']);
    assert.strictEqual(undone.code, 0, undone.err);
    assert.deepStrictEqual(digest(ws), afterRun);
  });

  it('run from another folder without --workspace: the folder the checkpoint was taken of is restored and the current one untouched; --workspace naming another folder exits 2 naming both', async () => {
    const original = digest(ws);
    await runTurn(EDIT_CREATE_DELETE);
    const afterRun = digest(ws);
    const turnStart = turnStartOf(await log());
    const other = path.join(dir, 'other');
    fs.mkdirSync(path.join(other, 'src'), { recursive: true });
    fs.writeFileSync(path.join(other, 'notes.txt'), 'my notes\n');
    fs.writeFileSync(path.join(other, 'src', 'main.c'), 'int main(void) { return 0; }\n');
    const otherFiles = digest(other);
    const real = fs.realpathSync(ws);
    const from = (extra: string[]) => runCli(['restore', tape, '--session', SESSION, '--at', String(turnStart), ...extra], undefined, other);

    const dry = await from(['--dry-run']);
    assert.strictEqual(dry.code, 0, dry.err);
    assert.ok(dry.out.split('\n').includes(`folder ${real}`), dry.out);
    const dryJson = await from(['--dry-run', '--json']);
    assert.strictEqual(dryJson.code, 0, dryJson.err);
    const plan = JSON.parse(dryJson.out) as Record<string, unknown>;
    assert.deepStrictEqual([plan.workspace, plan.changed, plan.created, plan.removed], [real, ['edit.txt'], ['gone.bin'], ['made.txt']]);

    const count = (await log()).length;
    for (const elsewhere of [other, '.']) {
      const refused = await from(['--workspace', elsewhere]);
      assert.strictEqual(refused.code, 2, refused.err);
      assert.ok(refused.err.includes(real) && refused.err.includes(fs.realpathSync(other)), refused.err);
      assert.match(refused.err, /nothing was changed/);
    }
    assert.deepStrictEqual(digest(other), otherFiles, "the other folder's notes.txt and src/main.c are still there");
    assert.deepStrictEqual(digest(ws), afterRun);
    assert.strictEqual((await log()).length, count, 'a refusal appends nothing');

    const r = await from([]);
    assert.strictEqual(r.code, 0, r.err);
    assert.deepStrictEqual(digest(ws), original, "the checkpoint's folder is restored");
    assert.deepStrictEqual(digest(other), otherFiles, 'the current folder is untouched');
    const restored = restoredOf((await log()).find((e) => e.name === WORKSPACE_RESTORED)!);
    assert.strictEqual(restored?.workspace?.root, real);
  });

  it("the workspace's own git repository shows the same HEAD, index and git status before the run and after the restore", async () => {
    fs.writeFileSync(path.join(ws, '.gitignore'), 'build/\n');
    git(ws, 'init', '-q', '-b', 'main');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'user commit');
    fs.writeFileSync(path.join(ws, 'keep.md'), '# stashed\n');
    git(ws, 'stash', '-q');
    fs.writeFileSync(path.join(ws, 'keep.md'), '# kept, staged\n');
    git(ws, 'add', 'keep.md');
    fs.mkdirSync(path.join(ws, 'build'));
    fs.writeFileSync(path.join(ws, 'build', 'out.js'), 'ignored\n');
    const repo = () => ({
      head: git(ws, 'rev-parse', 'HEAD'),
      branch: git(ws, 'symbolic-ref', 'HEAD'),
      index: git(ws, 'ls-files', '--stage'),
      refs: git(ws, 'for-each-ref'),
      stash: git(ws, 'stash', 'list'),
      status: git(ws, 'status', '--porcelain=v1', '--ignored'),
    });
    const indexBytes = fs.readFileSync(path.join(ws, '.git', 'index'));
    const before = repo();
    const files = digest(ws);

    await runTurn(EDIT_CREATE_DELETE);
    assert.notDeepStrictEqual(repo().status, before.status, 'the turn changed files git sees');
    const r = await restore(turnStartOf(await log()));
    assert.strictEqual(r.code, 0, r.err);
    assert.deepStrictEqual(digest(ws), files);
    assert.deepStrictEqual(fs.readFileSync(path.join(ws, '.git', 'index')), indexBytes);
    assert.deepStrictEqual(repo(), before);
    assert.match(before.status, /^M {2}keep\.md$/m);
  });

  it('a tape inside the workspace (the default, the current directory): neither the tape nor its store is ever listed, restored or removed', async () => {
    const inside = path.join(ws, 'agent.tape.sqlite');
    const original = digest(ws);
    await runTurn(EDIT_CREATE_DELETE, ['--allow-edits', '--allow-commands'], inside);
    const turnStart = turnStartOf(await log(inside));
    const dry = await restore(turnStart, ['--dry-run', '--json'], inside);
    assert.strictEqual(dry.code, 0, dry.err);
    const plan = JSON.parse(dry.out) as Record<string, string[]>;
    assert.deepStrictEqual([plan.changed, plan.created, plan.removed], [['edit.txt'], ['gone.bin'], ['made.txt']]);
    const r = await restore(turnStart, [], inside);
    assert.strictEqual(r.code, 0, r.err);
    const now = digest(ws);
    for (const [file, hash] of Object.entries(original)) assert.strictEqual(now[file], hash, file);
    assert.ok(!fs.existsSync(path.join(ws, 'made.txt')));
    assert.ok(fs.existsSync(inside), 'the tape is still there');
    assert.ok(fs.existsSync(path.join(`${inside}.checkpoints`, 'HEAD')), 'so is its store');
    assert.strictEqual((await log(inside)).filter((e) => e.name === WORKSPACE_RESTORED).length, 1);
  });

  it('a tape without checkpoints (--no-checkpoints, or neither edits nor commands allowed) exits 2 and changes nothing', async () => {
    await runTurn(EDIT_CREATE_DELETE, ['--allow-edits', '--allow-commands', '--no-checkpoints']);
    assert.ok(!fs.existsSync(`${tape}.checkpoints`), 'no store was made');
    const entries = await log();
    assert.ok(!entries.some((e) => e.name === WORKSPACE_CHECKPOINT));
    const files = digest(ws);
    for (const extra of [[], ['--dry-run'], ['--json']]) {
      const r = await restore(turnStartOf(entries), extra);
      assert.strictEqual(r.code, 2, r.err);
      assert.match(r.err, /session s1 has no workspace checkpoint at or before entry \d+/);
      assert.strictEqual(r.out, '');
    }
    assert.deepStrictEqual(digest(ws), files);

    const readOnly = path.join(dir, 'read-only.tape.sqlite');
    const reading: FakeReply[] = [
      { stream: [{ toolCall: { index: 0, id: 'r1', name: 'read_file', arguments: '{"path":"keep.md"}' } }] },
      { stream: [{ text: 'Read.' }] },
    ];
    await runTurn(reading, [], readOnly);
    assert.ok(!fs.existsSync(`${readOnly}.checkpoints`));
    const r = await restore(turnStartOf(await log(readOnly)), [], readOnly);
    assert.strictEqual(r.code, 2, r.err);
    assert.match(r.err, /no workspace checkpoint/);
  });

  it('restore of an entry before the first checkpoint, of an unknown session, or with the store gone exits 2; nothing changes', async () => {
    await runTurn(EDIT_CREATE_DELETE);
    const files = digest(ws);
    const entries = await log();
    const count = entries.length;
    const early = await restore(1);
    assert.strictEqual(early.code, 2, early.err);
    assert.match(early.err, /no workspace checkpoint at or before entry 1/);
    const unknown = await runCli(['restore', tape, '--session', 'nobody', '--at', '3', '--workspace', ws]);
    assert.strictEqual(unknown.code, 2);
    assert.match(unknown.err, /no session nobody/);
    for (const bad of [['--at', '0'], ['--at', 'x'], []]) {
      const r = await runCli(['restore', tape, '--session', SESSION, '--workspace', ws, ...bad]);
      assert.strictEqual(r.code, 2, `${bad.join(' ')}: ${r.err}`);
    }
    fs.rmSync(`${tape}.checkpoints`, { recursive: true });
    const gone = await restore(turnStartOf(entries));
    assert.strictEqual(gone.code, 2, gone.err);
    assert.match(gone.err, /no checkpoint store/);
    assert.deepStrictEqual(digest(ws), files);
    assert.strictEqual((await log()).length, count);
  });
});
