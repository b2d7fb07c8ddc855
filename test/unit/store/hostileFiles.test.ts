import * as assert from 'assert';
import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError, TapeFileTooLargeError } from '../../../src/store/errors';
import { journalPathOf } from '../../../src/store/journal';
import { repairTape } from '../../../src/store/repair';
import { TAPE_MAX_BYTES } from '../../../src/store/tapeSize';
import { openTapeFile } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, message, tempDir } from './helpers';

const TAPE_FILE_MODULE = path.resolve(__dirname, '../../../src/store/tapeFile');

/**
 * Opens a tape file in a child process, so that a read that never ends (a FIFO, /dev/zero read to
 * the end) fails the test at the timeout instead of hanging mocha. Reports the error's name and
 * message, or that it opened.
 */
function openInChild(file: string, readOnly: boolean): { name?: string; message?: string; opened?: boolean } {
  const script = `require(${JSON.stringify(TAPE_FILE_MODULE)}).openTapeFile(process.argv[1], { readOnly: process.argv[2] === 'ro' }).then(
    async (s) => { s.sessions(); await s.close(); console.log(JSON.stringify({ opened: true })); },
    (e) => console.log(JSON.stringify({ name: e.name, message: e.message })));`;
  const r = spawnSync(process.execPath, ['-e', script, file, readOnly ? 'ro' : 'rw'], { encoding: 'utf8', timeout: 5000, killSignal: 'SIGKILL' });
  assert.strictEqual(r.signal, null, `opening ${file} did not end within 5 s (killed); stderr: ${r.stderr}`);
  assert.strictEqual(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as { name?: string; message?: string; opened?: boolean };
}

/** The kinds of file a cloned repository can put where a tape file is expected, and what the refusal says. */
const HOSTILE: { kind: string; make: (at: string) => void; reason: RegExp }[] = [
  { kind: 'a symlink to /dev/zero', make: (at) => fs.symlinkSync('/dev/zero', at), reason: /is a character device, not a regular file/ },
  { kind: 'a FIFO', make: (at) => execFileSync('mkfifo', [at]), reason: /is a FIFO \(named pipe\), not a regular file/ },
  { kind: 'a directory', make: (at) => fs.mkdirSync(at), reason: /is a directory/ },
];

/** What is in the directory, symlinks and FIFOs as themselves: to show nothing was created or changed. */
const listing = (dir: string): string[] =>
  fs
    .readdirSync(dir)
    .sort()
    .map((n) => {
      const st = fs.lstatSync(path.join(dir, n));
      return `${n} ${st.isSymbolicLink() ? 'link' : st.isFIFO() ? 'fifo' : st.isDirectory() ? 'dir' : `file ${st.size}`}`;
    });

describe('hostile files where a tape, journal or JSONL is expected', function () {
  if (process.platform === 'win32') return;
  // Each test starts a Node child or three, each bounded at 5 s: mocha's 2 s default failed them
  // on a loaded machine while every child ended well within its bound.
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  for (const { kind, make, reason } of HOSTILE) {
    it(`a .tape.sqlite that is ${kind} is refused at once, read-only and writable, naming the file`, () => {
      const file = path.join(dir, 'x.tape.sqlite');
      make(file);
      const before = listing(dir);
      for (const readOnly of [true, false]) {
        const r = openInChild(file, readOnly);
        assert.strictEqual(r.name, 'TapeFileError', JSON.stringify(r));
        assert.ok(r.message?.startsWith(`${file}: `), r.message);
        assert.match(r.message ?? '', reason);
      }
      assert.deepStrictEqual(listing(dir), before, 'nothing created or changed (no lock, no journal left)');
    });

    it(`a .tape.sqlite.tapelog that is ${kind} is refused at once, naming the journal; the snapshot is unchanged`, async () => {
      const file = path.join(dir, 'x.tape.sqlite');
      const s = await TapeStore.open(file);
      await s.append('s', message('m1', 'hello'));
      await s.close();
      fs.rmSync(journalPathOf(file));
      make(journalPathOf(file));
      const snapshot = fingerprint(file);
      const before = listing(dir);
      for (const readOnly of [true, false]) {
        const r = openInChild(file, readOnly);
        assert.strictEqual(r.name, 'TapeFileError', JSON.stringify(r));
        assert.ok(r.message?.startsWith(`${journalPathOf(file)}: `), r.message);
        assert.match(r.message ?? '', reason);
      }
      await assert.rejects(repairTape(file), (e: Error) => e instanceof TapeFileError && e.message.startsWith(journalPathOf(file)) && reason.test(e.message));
      assert.deepStrictEqual(fingerprint(file), snapshot);
      assert.deepStrictEqual(listing(dir), before);
    });

    it(`a .tape.jsonl that is ${kind} is refused at once, naming the file`, () => {
      const file = path.join(dir, 'x.tape.jsonl');
      make(file);
      const before = listing(dir);
      const r = openInChild(file, true);
      assert.strictEqual(r.name, 'TapeFileError', JSON.stringify(r));
      assert.ok(r.message?.startsWith(`${file}: `), r.message);
      assert.match(r.message ?? '', reason);
      assert.deepStrictEqual(listing(dir), before);
    });
  }

  it('a snapshot over the size limit is refused unread (a sparse file: no disk used)', async () => {
    const file = path.join(dir, 'huge.tape.sqlite');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, TAPE_MAX_BYTES + 1);
    await assert.rejects(
      TapeStore.open(file, { readOnly: true }),
      (e: Error) => e instanceof TapeFileTooLargeError && e.message.startsWith(`${file}: is 3072 MiB, over the 3072 MiB limit for a tape`),
    );
  });

  it('a .tape.jsonl over the limit it is opened with is refused unread', async () => {
    const file = path.join(dir, 'big.tape.jsonl');
    fs.writeFileSync(file, '');
    fs.truncateSync(file, 3 << 20);
    await assert.rejects(
      openTapeFile(file, { readOnly: true, jsonlMaxBytes: 2 << 20 }),
      (e: Error) => e instanceof TapeFileTooLargeError && e.message === `${file}: is 3 MiB, over the 2 MiB limit for a JSONL tape; refusing to read it`,
    );
  });
});
