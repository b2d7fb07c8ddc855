import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  CheckpointMissingError,
  CheckpointStore,
  isEmptyPlan,
  PACKS_BEFORE_REPACK,
  WorkspaceTooLargeError,
  type CheckpointStoreOptions,
  type RestorePlan,
} from '../../../src/agent/checkpoints/checkpointStore';
import { GitMissingError } from '../../../src/agent/checkpoints/shadowGit';
import { dirDigest } from '../../support/dirDigest';

/** Git for the test's own look at a repository: no user or system configuration, no GIT_* of this process, nothing written by a read. */
function git(cwd: string, args: string[], input?: string): string {
  return execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    input,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C' },
  });
}

const digest = (dir: string): Record<string, string> => dirDigest(dir);

/** process.env changed for the duration of `fn`, then put back. */
async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  Object.assign(process.env, vars);
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

const KiB = 1024;

describe('CheckpointStore (a shadow git repository, on real directories and the system git)', function () {
  this.timeout(60_000);
  let base: string;
  let ws: string;
  let outside: string;
  let storeDir: string;

  beforeEach(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-checkpoints-')));
    ws = path.join(base, 'ws');
    outside = path.join(base, 'outside');
    storeDir = path.join(base, 'store');
    fs.mkdirSync(ws);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'SECRET\n');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  const at = (rel: string) => path.join(ws, rel);
  const write = (rel: string, content: string | Buffer) => {
    fs.mkdirSync(path.dirname(at(rel)), { recursive: true });
    fs.writeFileSync(at(rel), content);
  };
  const bytes = (rel: string) => fs.readFileSync(at(rel));
  const open = (options: CheckpointStoreOptions = {}) => CheckpointStore.open(storeDir, ws, options);
  const planned = (plan: RestorePlan) => ({ changed: plan.changed, created: plan.created, removed: plan.removed, leftAlone: plan.leftAlone });
  const restore = async (store: CheckpointStore, id: string) => {
    const plan = await store.planRestore(id);
    await store.applyRestore(plan);
    return plan;
  };

  describe('snapshots', () => {
    it('the first lists no changes; the next lists added, modified and deleted files with line counts, a binary file with null counts', async () => {
      write('keep.txt', 'same\n');
      write('edit.txt', 'one\ntwo\nthree\n');
      write('gone.txt', 'a\nb\n');
      write('logo.bin', Buffer.from([0, 1, 2, 3, 0, 255]));
      const store = await open();
      assert.strictEqual(await store.head(), null);
      const first = await store.snapshot();
      assert.deepStrictEqual([first.previousId, first.files, first.fileCount, first.skipped], [null, [], 4, []]);
      assert.match(first.checkpointId, /^[0-9a-f]{40}$/);
      assert.strictEqual(await store.head(), first.checkpointId);

      write('edit.txt', 'one\nTWO\nthree\nfour\n');
      fs.rmSync(at('gone.txt'));
      write('src/new.ts', 'export const x = 1;\nexport const y = 2;\n');
      write('logo.bin', Buffer.from([0, 9, 9, 9, 0, 255]));
      const second = await store.snapshot();
      assert.strictEqual(second.previousId, first.checkpointId);
      assert.deepStrictEqual(second.files, [
        { path: 'edit.txt', change: 'modified', added: 2, removed: 1 },
        { path: 'gone.txt', change: 'deleted', added: 0, removed: 2 },
        { path: 'logo.bin', change: 'modified', added: null, removed: null },
        { path: 'src/new.ts', change: 'added', added: 2, removed: 0 },
      ]);
      assert.strictEqual(second.fileCount, 4);
      assert.deepStrictEqual(await store.changes(first.checkpointId, second.checkpointId), second.files);

      // Nothing changed: the same checkpoint, no files.
      const third = await store.snapshot();
      assert.deepStrictEqual([third.checkpointId, third.files], [second.checkpointId, []]);
      // diffFrom lists the changes since another checkpoint.
      const since = await store.snapshot({ diffFrom: first.checkpointId });
      assert.deepStrictEqual([since.previousId, since.files], [first.checkpointId, second.files]);
      assert.deepStrictEqual(await store.fileAt(first.checkpointId, 'edit.txt', KiB), Buffer.from('one\ntwo\nthree\n'));
      assert.strictEqual(await store.fileAt(second.checkpointId, 'gone.txt', KiB), null);
      await assert.rejects(store.fileAt(second.checkpointId, 'edit.txt', 4));
    });

    it('honours .gitignore files (the root one and nested ones): an ignored file is never taken in, nor touched by a restore', async () => {
      write('.gitignore', 'build/\n*.log\n');
      write('pkg/.gitignore', 'cache.json\n');
      write('src/a.ts', 'a\n');
      write('build/out.js', 'built\n');
      write('debug.log', 'log 1\n');
      write('pkg/cache.json', '{}\n');
      write('pkg/index.ts', 'i\n');
      const store = await open();
      const first = await store.snapshot();
      assert.strictEqual(first.fileCount, 4, '.gitignore, pkg/.gitignore, src/a.ts, pkg/index.ts');
      for (const ignored of ['build/out.js', 'debug.log', 'pkg/cache.json'])
        assert.strictEqual(await store.fileAt(first.checkpointId, ignored, KiB), null, ignored);

      write('src/a.ts', 'a changed\n');
      write('debug.log', 'log 2\n');
      write('build/more.js', 'more\n');
      const second = await store.snapshot();
      assert.deepStrictEqual(
        second.files.map((f) => f.path),
        ['src/a.ts'],
      );
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: ['src/a.ts'], created: [], removed: [], leftAlone: [] });
      assert.strictEqual(bytes('src/a.ts').toString(), 'a\n');
      assert.strictEqual(bytes('debug.log').toString(), 'log 2\n');
      assert.strictEqual(bytes('build/more.js').toString(), 'more\n');
    });

    it('skips a file over maxFileBytes; a tracked file that grows over it is untracked, and a restore leaves it as it is', async () => {
      write('small.txt', 'small\n');
      write('grows.txt', 'was small\n');
      write('huge.bin', Buffer.alloc(5 * KiB, 7));
      const store = await open({ limits: { maxFileBytes: 4 * KiB } });
      const first = await store.snapshot();
      assert.deepStrictEqual(first.skipped, [{ path: 'huge.bin', reason: 'too_large', size: 5 * KiB }]);
      assert.strictEqual(first.fileCount, 2);
      assert.strictEqual(await store.fileAt(first.checkpointId, 'huge.bin', 10 * KiB), null);

      const big = Buffer.alloc(6 * KiB, 'x');
      write('grows.txt', big);
      const second = await store.snapshot();
      assert.deepStrictEqual(second.skipped.map((s) => [s.path, s.reason, s.size]).sort(), [
        ['grows.txt', 'too_large', 6 * KiB],
        ['huge.bin', 'too_large', 5 * KiB],
      ]);
      assert.deepStrictEqual(second.files, [{ path: 'grows.txt', change: 'deleted', added: 0, removed: 1 }], 'it leaves the checkpoints');
      assert.strictEqual(await store.fileAt(second.checkpointId, 'grows.txt', 10 * KiB), null);

      write('small.txt', 'changed\n');
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: ['small.txt'], created: [], removed: [], leftAlone: ['grows.txt'] });
      assert.deepStrictEqual(bytes('grows.txt'), big, 'the large file is left alone');
      assert.strictEqual(bytes('small.txt').toString(), 'small\n');
      assert.deepStrictEqual(bytes('huge.bin'), Buffer.alloc(5 * KiB, 7));
    });

    it("never takes in the tape's own files (its journal and lock too) nor a store inside the workspace, and a restore never removes them", async () => {
      const tape = at('agent.tape.sqlite');
      const inside = path.join(ws, 'agent.tape.sqlite.checkpoints');
      write('agent.tape.sqlite', 'SQLite format 3\0');
      write('agent.tape.sqlite-journal', 'journal');
      write('a.txt', 'a\n');
      const store = await CheckpointStore.open(inside, ws, { exclude: [tape, inside] });
      const first = await store.snapshot();
      assert.strictEqual(first.fileCount, 1);
      assert.deepStrictEqual(
        first.skipped.map((s) => [s.path, s.reason]),
        [
          ['agent.tape.sqlite', 'tape_file'],
          ['agent.tape.sqlite.checkpoints', 'tape_file'],
        ],
      );
      write('agent.tape.sqlite', 'SQLite format 3\0 and more');
      write('agent.tape.sqlite-wal', 'wal');
      write('a.txt', 'b\n');
      const second = await store.snapshot();
      assert.deepStrictEqual(
        second.files.map((f) => f.path),
        ['a.txt'],
      );
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: ['a.txt'], created: [], removed: [], leftAlone: [] });
      assert.strictEqual(bytes('agent.tape.sqlite').toString(), 'SQLite format 3\0 and more');
      assert.ok(fs.existsSync(at('agent.tape.sqlite-wal')) && fs.existsSync(at('agent.tape.sqlite-journal')));
      assert.ok(fs.existsSync(path.join(inside, 'HEAD')), 'the store is still there');
    });

    it('never takes in a store inside the workspace, even when not told to leave it out', async () => {
      write('a.txt', 'a\n');
      const inside = at('.checkpoints');
      const store = await CheckpointStore.open(inside, ws);
      const first = await store.snapshot();
      assert.deepStrictEqual([first.fileCount, first.skipped], [1, [{ path: '.checkpoints', reason: 'tape_file' }]]);
      write('a.txt', 'b\n');
      const second = await store.snapshot();
      assert.deepStrictEqual(
        second.files.map((f) => f.path),
        ['a.txt'],
      );
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: ['a.txt'], created: [], removed: [], leftAlone: [] });
      assert.ok(fs.existsSync(path.join(inside, 'HEAD')));
    });

    it('skips a nested repository and reports it; a restore leaves its files alone', async () => {
      write('a.txt', 'a\n');
      write('vendor/lib/lib.c', 'int x;\n');
      git(at('vendor/lib'), ['init', '-q']);
      const store = await open();
      const first = await store.snapshot();
      assert.deepStrictEqual(first.skipped, [{ path: 'vendor/lib', reason: 'nested_repository' }]);
      assert.strictEqual(await store.fileAt(first.checkpointId, 'vendor/lib/lib.c', KiB), null);
      write('vendor/lib/lib.c', 'int y;\n');
      write('a.txt', 'b\n');
      await restore(store, first.checkpointId);
      assert.strictEqual(bytes('vendor/lib/lib.c').toString(), 'int y;\n');
      assert.strictEqual(bytes('a.txt').toString(), 'a\n');
      assert.ok(fs.statSync(at('vendor/lib/.git')).isDirectory());
    });

    it('takes names with spaces, *, ?, [ ], :, pathspec magic, backslashes, tabs, newlines, unicode and a leading - literally', async () => {
      const names = [
        'with space.txt',
        '*',
        '*.txt',
        'q?.md',
        '[ab].txt',
        'a:b',
        ':(glob)**',
        ':!exclude',
        'back\\slash',
        'tab\tname',
        'new\nline',
        'ünïcødé ✓.txt',
        '日本語/ファイル.md',
        '-rf',
        '--all',
        'dir with space/-n',
      ];
      names.forEach((name, i) => write(name, `file ${i}\n`));
      write('a.txt', 'plain\n');
      const store = await open();
      const first = await store.snapshot();
      assert.strictEqual(first.fileCount, names.length + 1);
      for (const [i, name] of names.entries()) assert.deepStrictEqual(await store.fileAt(first.checkpointId, name, KiB), Buffer.from(`file ${i}\n`), name);

      for (const name of names) write(name, `changed ${name}\n`);
      fs.rmSync(at('*'));
      const second = await store.snapshot();
      assert.deepStrictEqual(second.files.map((f) => f.path).sort(), [...names].sort(), 'exactly these, not what a glob would match');
      assert.strictEqual(second.files.find((f) => f.path === '*')?.change, 'deleted');
      assert.strictEqual(bytes('a.txt').toString(), 'plain\n');

      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(plan.created, ['*']);
      for (const [i, name] of names.entries()) assert.strictEqual(bytes(name).toString(), `file ${i}\n`, name);
    });
  });

  describe('restore', () => {
    it('brings back changed, created and removed files byte for byte (CRLF, mixed endings, binary), despite the workspace .gitattributes', async () => {
      const marker = path.join(outside, 'filter-ran');
      const originals: Record<string, Buffer> = {
        '.gitattributes': Buffer.from('* text=auto eol=crlf\n*.txt filter=evil ident\n*.md working-tree-encoding=UTF-16\n'),
        'crlf.txt': Buffer.from('one\r\ntwo\r\n'),
        'mixed.txt': Buffer.from('lf\ncrlf\r\ncr\rno newline at end'),
        'lf.md': Buffer.from('# $Id$\nplain lf\n'),
        'bin.dat': Buffer.from([0x00, 0x0d, 0x0a, 0x0a, 0x0d, 0xff, 0xfe, 0x00]),
        'nested/dir/removed-later.txt': Buffer.from('I will be deleted\r\n'),
        'empty.txt': Buffer.alloc(0),
      };
      for (const [rel, content] of Object.entries(originals)) write(rel, content);
      // A filter the workspace's attributes name, defined where a git that read the user's configuration would find it.
      const globalConfig = path.join(base, 'gitconfig');
      fs.writeFileSync(globalConfig, `[filter "evil"]\n\tclean = sh -c 'touch ${marker}; tr a-z A-Z'\n\tsmudge = sh -c 'touch ${marker}; tr a-z A-Z'\n`);
      await withEnv({ GIT_CONFIG_GLOBAL: globalConfig }, async () => {
        const store = await open();
        const first = await store.snapshot();
        for (const [rel, content] of Object.entries(originals)) assert.deepStrictEqual(await store.fileAt(first.checkpointId, rel, KiB), content, rel);

        write('crlf.txt', 'one\r\nTWO\r\n');
        write('mixed.txt', 'all lf now\n');
        fs.rmSync(at('nested/dir/removed-later.txt'));
        fs.rmSync(at('bin.dat'));
        write('created/by/agent.txt', 'new\r\n');
        write('created.bin', Buffer.from([1, 2, 3]));
        await store.snapshot();

        const plan = await store.planRestore(first.checkpointId);
        assert.deepStrictEqual(planned(plan), {
          changed: ['crlf.txt', 'mixed.txt'],
          created: ['bin.dat', 'nested/dir/removed-later.txt'],
          removed: ['created.bin', 'created/by/agent.txt'],
          leftAlone: [],
        });
        assert.strictEqual(bytes('mixed.txt').toString(), 'all lf now\n', 'planning changes nothing');
        await store.applyRestore(plan);
      });
      for (const [rel, content] of Object.entries(originals)) assert.deepStrictEqual(bytes(rel), content, rel);
      assert.ok(!fs.existsSync(at('created')), 'the directories the agent created are gone with their files');
      assert.ok(!fs.existsSync(at('created.bin')));
      assert.ok(!fs.existsSync(marker), 'the filter never ran');
    });

    it('restoring twice changes nothing the second time: an empty plan, no file written, no new checkpoint', async () => {
      write('a.txt', 'a\n');
      write('b.txt', 'b\n');
      const store = await open();
      const first = await store.snapshot();
      write('a.txt', 'changed\n');
      fs.rmSync(at('b.txt'));
      write('c.txt', 'new\n');
      const once = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(once), { changed: ['a.txt'], created: ['b.txt'], removed: ['c.txt'], leftAlone: [] });
      const files = digest(ws);
      const mtimes = ['a.txt', 'b.txt'].map((f) => fs.statSync(at(f)).mtimeMs);
      const head = await store.head();

      const twice = await store.planRestore(first.checkpointId);
      assert.ok(isEmptyPlan(twice));
      assert.deepStrictEqual(planned(twice), { changed: [], created: [], removed: [], leftAlone: [] });
      assert.strictEqual(twice.before.checkpointId, head, 'the workspace is already the restored checkpoint');
      await store.applyRestore(twice);
      assert.deepStrictEqual(digest(ws), files);
      assert.deepStrictEqual(
        ['a.txt', 'b.txt'].map((f) => fs.statSync(at(f)).mtimeMs),
        mtimes,
      );
      assert.strictEqual(await store.head(), head);
      // And the restore can itself be undone: its plan's `before` holds the state it replaced.
      await restore(store, once.before.checkpointId);
      assert.deepStrictEqual([bytes('a.txt').toString(), fs.existsSync(at('b.txt')), bytes('c.txt').toString()], ['changed\n', false, 'new\n']);
    });

    it("never touches the workspace's own git repository: HEAD, index (entries and bytes), refs, stash, status and every file of .git stay as they were", async () => {
      write('tracked.txt', 'v1\n');
      write('staged.txt', 's1\n');
      write('.gitignore', 'ignored.log\n');
      git(ws, ['init', '-q', '-b', 'main']);
      git(ws, ['add', '.']);
      git(ws, ['commit', '-q', '-m', 'first']);
      git(ws, ['branch', 'side']);
      git(ws, ['tag', 'v1']);
      write('tracked.txt', 'stashed change\n');
      git(ws, ['stash', '-q']);
      write('staged.txt', 's2 staged\n');
      git(ws, ['add', 'staged.txt']);
      write('tracked.txt', 'v1 unstaged edit\n');
      write('untracked.txt', 'u\n');
      write('ignored.log', 'log\n');
      const repo = () => ({
        head: git(ws, ['rev-parse', 'HEAD']),
        branch: git(ws, ['symbolic-ref', 'HEAD']),
        index: git(ws, ['ls-files', '--stage']),
        refs: git(ws, ['for-each-ref']),
        stash: git(ws, ['stash', 'list', '--format=%H %s']),
        status: git(ws, ['status', '--porcelain=v1', '--untracked-files=all', '--ignored']),
      });
      // The .git directory's bytes first: the reads of repo() write nothing (GIT_OPTIONAL_LOCKS=0).
      const dotGit = digest(at('.git'));
      const indexBytes = fs.readFileSync(at('.git/index'));
      const before = repo();

      const store = await open();
      const first = await store.snapshot();
      assert.deepStrictEqual(digest(at('.git')), dotGit, 'a snapshot writes nothing in .git');
      assert.strictEqual(await store.fileAt(first.checkpointId, '.git/HEAD', KiB), null, '.git is never taken in');
      write('tracked.txt', 'the agent edited this\n');
      write('staged.txt', 'and this\n');
      fs.rmSync(at('untracked.txt'));
      write('agent-made.txt', 'new\n');
      await store.snapshot();
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), {
        changed: ['staged.txt', 'tracked.txt'],
        created: ['untracked.txt'],
        removed: ['agent-made.txt'],
        leftAlone: [],
      });
      assert.deepStrictEqual(digest(at('.git')), dotGit, 'a restore writes nothing in .git');
      assert.deepStrictEqual(fs.readFileSync(at('.git/index')), indexBytes);
      assert.deepStrictEqual(repo(), before);
      assert.match(before.status, /^M {2}staged\.txt$/m);
      assert.match(before.stash, /WIP on main/);
    });

    it('a symlink pointing outside is stored as a link; a restore replaces links and files without ever writing through one', async () => {
      const secret = path.join(outside, 'secret.txt');
      write('a.txt', 'a\n');
      write('dir/f.txt', 'in dir\n');
      fs.symlinkSync(secret, at('link'));
      fs.symlinkSync(outside, at('dirlink'));
      const store = await open();
      const first = await store.snapshot();
      assert.deepStrictEqual(await store.fileAt(first.checkpointId, 'link', KiB), Buffer.from(secret), 'the link, not what it points at');
      assert.strictEqual(await store.fileAt(first.checkpointId, 'dirlink/secret.txt', KiB), null, 'nothing is read through a link');
      const secretBefore = digest(outside);

      // a.txt becomes a link out, link becomes a file, dir becomes a link out (holding an f.txt of its own), dirlink a directory.
      fs.rmSync(at('a.txt'));
      fs.symlinkSync(secret, at('a.txt'));
      fs.rmSync(at('link'));
      write('link', 'a file now\n');
      fs.writeFileSync(path.join(outside, 'f.txt'), 'outside f\n');
      fs.rmSync(at('dir'), { recursive: true });
      fs.symlinkSync(outside, at('dir'));
      fs.rmSync(at('dirlink'));
      write('dirlink/secret.txt', 'a real file\n');
      const outsideNow = digest(outside);
      await store.snapshot();
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(plan.changed, ['a.txt', 'link']);
      assert.deepStrictEqual(digest(outside), outsideNow, 'nothing outside the workspace was written');
      assert.strictEqual(outsideNow['secret.txt'], secretBefore['secret.txt']);
      assert.strictEqual(bytes('a.txt').toString(), 'a\n');
      assert.ok(fs.lstatSync(at('a.txt')).isFile());
      assert.strictEqual(fs.readlinkSync(at('link')), secret);
      assert.ok(fs.lstatSync(at('dir')).isDirectory() && !fs.lstatSync(at('dir')).isSymbolicLink());
      assert.strictEqual(bytes('dir/f.txt').toString(), 'in dir\n');
      assert.strictEqual(fs.readlinkSync(at('dirlink')), outside);
    });

    it('a directory replaced by a symlink (to a place holding the same names) is checkpointed and restored', async () => {
      write('dir/f.txt', 'in dir\n');
      write('a.txt', 'a\n');
      const store = await open();
      const first = await store.snapshot();
      fs.writeFileSync(path.join(outside, 'f.txt'), 'outside f\n');
      fs.rmSync(at('dir'), { recursive: true });
      fs.symlinkSync(outside, at('dir'));
      const second = await store.snapshot();
      assert.deepStrictEqual(
        second.files.map((f) => [f.path, f.change]),
        [
          ['dir', 'added'],
          ['dir/f.txt', 'deleted'],
        ],
      );
      assert.deepStrictEqual(await store.fileAt(second.checkpointId, 'dir', KiB), Buffer.from(outside));
      const outsideNow = digest(outside);
      await restore(store, first.checkpointId);
      assert.deepStrictEqual(digest(outside), outsideNow);
      assert.ok(!fs.lstatSync(at('dir')).isSymbolicLink());
      assert.strictEqual(bytes('dir/f.txt').toString(), 'in dir\n');
    });

    it('a directory where the checkpoint has a link: replaced once the files the restore removes are gone, left alone while it holds others', async () => {
      write('.gitignore', '*.log\n');
      fs.symlinkSync(outside, at('clean'));
      fs.symlinkSync(outside, at('busy'));
      const store = await open();
      const first = await store.snapshot();
      for (const dir of ['clean', 'busy']) {
        fs.rmSync(at(dir));
        write(`${dir}/made.txt`, 'made by the agent\n');
      }
      write('busy/build.log', 'ignored, so in no checkpoint\n');
      await store.snapshot();
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: [], created: ['clean'], removed: ['busy/made.txt', 'clean/made.txt'], leftAlone: ['busy'] });
      assert.strictEqual(fs.readlinkSync(at('clean')), outside);
      assert.deepStrictEqual(fs.readdirSync(at('busy')), ['build.log']);
      assert.deepStrictEqual(fs.readdirSync(outside), ['secret.txt']);
    });

    it('a file that became a directory and a directory that became a file: checkpointed, and restored both ways', async () => {
      write('was-file', 'a file\n');
      write('was-dir/inner.txt', 'inside\n');
      const store = await open();
      const first = await store.snapshot();
      fs.rmSync(at('was-file'));
      write('was-file/now.txt', 'now a directory\n');
      fs.rmSync(at('was-dir'), { recursive: true });
      write('was-dir', 'now a file\n');
      const second = await store.snapshot();
      assert.deepStrictEqual(
        second.files.map((f) => [f.path, f.change]),
        [
          ['was-dir', 'added'],
          ['was-dir/inner.txt', 'deleted'],
          ['was-file', 'deleted'],
          ['was-file/now.txt', 'added'],
        ],
      );
      await restore(store, first.checkpointId);
      assert.deepStrictEqual([bytes('was-file').toString(), bytes('was-dir/inner.txt').toString()], ['a file\n', 'inside\n']);
      await restore(store, second.checkpointId);
      assert.deepStrictEqual([bytes('was-file/now.txt').toString(), bytes('was-dir').toString()], ['now a directory\n', 'now a file\n']);
    });

    it('a hostile .git file in a subfolder: one naming no repository is never stored nor removed, one naming a repository outside makes a nested repository whose hooks never run', async () => {
      const evil = path.join(outside, 'evil');
      const marker = path.join(outside, 'hook-ran');
      fs.mkdirSync(evil);
      git(evil, ['init', '-q']);
      const hook = `#!/bin/sh\ntouch ${marker}\n`;
      for (const name of ['pre-commit', 'post-checkout', 'post-index-change', 'reference-transaction', 'fsmonitor-watchman'])
        fs.writeFileSync(path.join(evil, '.git', 'hooks', name), hook, { mode: 0o755 });
      fs.appendFileSync(
        path.join(evil, '.git', 'config'),
        `[core]\n\tfsmonitor = ${path.join(evil, '.git', 'hooks', 'fsmonitor-watchman')}\n\thooksPath = ${path.join(evil, '.git', 'hooks')}\n`,
      );
      const evilGit = digest(path.join(evil, '.git'));
      write('plain/.git', 'gitdir: /nonexistent/repository\n');
      write('plain/code.ts', 'code\n');
      write('linked/.git', `gitdir: ${path.join(evil, '.git')}\n`);
      write('linked/code.ts', 'linked\n');
      write('a.txt', 'a\n');
      const store = await open();
      const first = await store.snapshot();
      assert.deepStrictEqual(first.skipped, [{ path: 'linked', reason: 'nested_repository' }]);
      assert.deepStrictEqual(await store.fileAt(first.checkpointId, 'plain/code.ts', KiB), Buffer.from('code\n'));
      assert.strictEqual(await store.fileAt(first.checkpointId, 'plain/.git', KiB), null);
      write('plain/code.ts', 'changed\n');
      write('linked/code.ts', 'changed too\n');
      write('plain/.git', 'gitdir: /elsewhere\n');
      await store.snapshot();
      const plan = await restore(store, first.checkpointId);
      assert.deepStrictEqual(planned(plan), { changed: ['plain/code.ts'], created: [], removed: [], leftAlone: [] });
      assert.strictEqual(bytes('plain/code.ts').toString(), 'code\n');
      assert.strictEqual(bytes('plain/.git').toString(), 'gitdir: /elsewhere\n');
      assert.strictEqual(bytes('linked/code.ts').toString(), 'changed too\n');
      assert.ok(!fs.existsSync(marker), 'no hook ran');
      assert.deepStrictEqual(digest(path.join(evil, '.git')), evilGit);
    });

    it('GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE and other GIT_* variables of this process do not reach the store', async () => {
      write('a.txt', 'a\n');
      git(ws, ['init', '-q']);
      git(ws, ['add', '.']);
      git(ws, ['commit', '-q', '-m', 'user']);
      const dotGit = digest(at('.git'));
      const decoy = path.join(outside, 'decoy');
      fs.mkdirSync(decoy);
      const vars = {
        GIT_DIR: at('.git'),
        GIT_WORK_TREE: outside,
        GIT_INDEX_FILE: at('.git/index'),
        GIT_OBJECT_DIRECTORY: at('.git/objects'),
        GIT_ALTERNATE_OBJECT_DIRECTORIES: at('.git/objects'),
        GIT_COMMON_DIR: at('.git'),
        GIT_NAMESPACE: 'evil',
        GIT_CONFIG: path.join(decoy, 'config'),
        GIT_CONFIG_PARAMETERS: "'core.hooksPath'='/tmp' 'core.autocrlf'='true'",
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.autocrlf',
        GIT_CONFIG_VALUE_0: 'true',
        GIT_LITERAL_PATHSPECS: '0',
        GIT_GLOB_PATHSPECS: '1',
        GIT_ATTR_SOURCE: 'HEAD',
        GIT_QUARANTINE_PATH: decoy,
      };
      await withEnv(vars, async () => {
        const store = await open();
        const first = await store.snapshot();
        write('a.txt', 'b\r\n');
        write('*', 'star\n');
        const second = await store.snapshot();
        assert.deepStrictEqual(
          second.files.map((f) => f.path),
          ['*', 'a.txt'],
        );
        await restore(store, first.checkpointId);
        assert.deepStrictEqual(await store.fileAt(second.checkpointId, 'a.txt', KiB), Buffer.from('b\r\n'), 'no autocrlf');
      });
      assert.strictEqual(bytes('a.txt').toString(), 'a\n');
      assert.ok(!fs.existsSync(at('*')));
      assert.deepStrictEqual(digest(at('.git')), dotGit, "the user's repository was not written");
      assert.deepStrictEqual(fs.readdirSync(decoy), []);
      assert.deepStrictEqual(fs.readdirSync(outside).sort(), ['decoy', 'secret.txt']);
      assert.ok(fs.existsSync(path.join(storeDir, 'HEAD')));
      assert.notStrictEqual(git(storeDir, ['--git-dir', storeDir, 'for-each-ref']), '');
    });
  });

  describe('the store on disk', () => {
    it('past PACKS_BEFORE_REPACK packs a snapshot repacks the store into one pack, no loose object left; every checkpoint stays readable and restorable', async () => {
      write('a.txt', 'a\n');
      const store = await open();
      const packs = () => fs.readdirSync(path.join(storeDir, 'objects', 'pack')).filter((n) => n.endsWith('.pack')).length;
      const loose = () =>
        fs.readdirSync(path.join(storeDir, 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d) && fs.readdirSync(path.join(storeDir, 'objects', d)).length > 0)
          .length;
      const ids = [(await store.snapshot()).checkpointId];
      const counts: [number, number][] = [];
      for (let i = 1; i <= PACKS_BEFORE_REPACK + 1; i++) {
        write(`f${i}.txt`, `file ${i}\n`);
        write('a.txt', `a ${i}\n`);
        ids.push((await store.snapshot()).checkpointId);
        counts.push([packs(), loose()]);
      }
      // One pack per snapshot (the first one's too) until there are more than the limit; then one, with everything in it.
      assert.deepStrictEqual(
        counts.map(([p]) => p),
        [...Array.from({ length: PACKS_BEFORE_REPACK - 1 }, (_, i) => i + 2), 1, 2],
      );
      assert.strictEqual(counts[PACKS_BEFORE_REPACK - 1][1], 0, 'the trees and commits went into the pack too');
      assert.ok(counts[PACKS_BEFORE_REPACK - 2][1] > 0, 'they were loose before');
      for (const [i, id] of ids.entries()) assert.strictEqual((await store.fileAt(id, 'a.txt', KiB))?.toString(), i === 0 ? 'a\n' : `a ${i}\n`);
      await restore(store, ids[3]);
      assert.strictEqual(bytes('a.txt').toString(), 'a 3\n');
      assert.ok(!fs.existsSync(at('f4.txt')) && fs.existsSync(at('f3.txt')));
      assert.strictEqual(git(storeDir, ['--git-dir', storeDir, 'fsck', '--no-progress', '--no-dangling']), '');
    });
  });

  describe('failures and limits', () => {
    it('git missing (a PATH without git): GitMissingError, on open and on a snapshot of a store already open', async () => {
      write('a.txt', 'a\n');
      const empty = path.join(base, 'no-git-here');
      fs.mkdirSync(empty);
      await withEnv({ PATH: empty }, () => assert.rejects(open(), GitMissingError));
      const store = await open();
      await withEnv({ PATH: empty }, () => assert.rejects(store.snapshot(), GitMissingError));
      assert.match((await store.snapshot()).checkpointId, /^[0-9a-f]{40}$/, 'with git back, it works');
    });

    it('a workspace over maxFiles (ignored files not counted), or a snapshot over maxNewBytes: WorkspaceTooLargeError, nothing recorded', async () => {
      write('.gitignore', 'node_modules/\n');
      for (let i = 0; i < 10; i++) write(`src/f${i}.ts`, `${i}\n`);
      for (let i = 0; i < 50; i++) write(`node_modules/m${i}.js`, `${i}\n`);
      assert.strictEqual((await (await CheckpointStore.open(path.join(base, 'fits'), ws, { limits: { maxFiles: 11 } })).snapshot()).fileCount, 11);
      const store = await open({ limits: { maxFiles: 10 } });
      await assert.rejects(store.snapshot(), (e: Error) => e instanceof WorkspaceTooLargeError && /more than 10 files/.test(e.message));
      assert.strictEqual(await store.head(), null, 'nothing was recorded');
      const bytesLimited = await CheckpointStore.open(path.join(base, 'bytes'), ws, { limits: { maxNewBytes: 16 } });
      await assert.rejects(bytesLimited.snapshot(), WorkspaceTooLargeError);
      assert.strictEqual(await bytesLimited.head(), null);
    });

    it('planRestore of an id the store does not hold: CheckpointMissingError, nothing changed; open without create of a missing store too', async () => {
      write('a.txt', 'a\n');
      const store = await open();
      await store.snapshot();
      write('a.txt', 'changed\n');
      for (const id of ['0'.repeat(40), 'f'.repeat(64), 'not-an-id', 'HEAD']) await assert.rejects(store.planRestore(id), CheckpointMissingError, id);
      assert.strictEqual(bytes('a.txt').toString(), 'changed\n');
      await assert.rejects(CheckpointStore.open(path.join(base, 'none'), ws, { create: false }), CheckpointMissingError);
      assert.ok(!fs.existsSync(path.join(base, 'none')));
    });

    it('snapshots and restores asked for at once run one after another, each complete', async () => {
      write('a.txt', 'a\n');
      const store = await open();
      const first = await store.snapshot();
      write('b.txt', 'b\n');
      const results = await Promise.allSettled([store.snapshot(), store.snapshot(), store.planRestore(first.checkpointId), store.snapshot()]);
      assert.deepStrictEqual(
        results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')),
        ['ok', 'ok', 'ok', 'ok'],
      );
      const plan = (results[2] as PromiseFulfilledResult<RestorePlan>).value;
      assert.deepStrictEqual(planned(plan), { changed: [], created: [], removed: ['b.txt'], leftAlone: [] });
    });
  });
});
