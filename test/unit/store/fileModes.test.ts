import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { journalPathOf } from '../../../src/store/journal';
import { lockPathOf } from '../../../src/store/lock';
import { repairTape } from '../../../src/store/repair';
import { exportJsonl, exportSession, importJsonl } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';
import { recordStarts } from '../cli/journalFrames';
import { message, tempDir } from './helpers';

const modeOf = (file: string): string => (fs.statSync(file).mode & 0o777).toString(8);

describe('files the store creates are private to the user (0600)', function () {
  if (process.platform === 'win32') return;
  let dir: string;
  let umask: number;
  beforeEach(() => {
    dir = tempDir();
    // Whatever the umask lets through, a tape's files are the user's alone.
    umask = process.umask(0);
  });
  afterEach(() => {
    process.umask(umask);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the tape, its journal (new and rotated), its lock and every export', async () => {
    const file = path.join(dir, 't.tape.sqlite');
    const s = await TapeStore.open(file);
    await s.append('s', message('m1', 'secret'));
    assert.deepStrictEqual([modeOf(file), modeOf(journalPathOf(file)), modeOf(lockPathOf(file))], ['600', '600', '600']);
    await s.checkpoint(); // writes the snapshot again and rotates the journal
    assert.deepStrictEqual([modeOf(file), modeOf(journalPathOf(file))], ['600', '600']);
    for (const suffix of ['.tape.jsonl', '.tape.sqlite']) {
      const dst = path.join(dir, `session${suffix}`);
      await exportSession(s, 's', dst);
      assert.strictEqual(modeOf(dst), '600', dst);
    }
    await s.close();
    await exportJsonl(file, path.join(dir, 'all.tape.jsonl'));
    await importJsonl(path.join(dir, 'all.tape.jsonl'), path.join(dir, 'imported.tape.sqlite'));
    assert.deepStrictEqual([modeOf(path.join(dir, 'all.tape.jsonl')), modeOf(path.join(dir, 'imported.tape.sqlite'))], ['600', '600']);
  });

  it("a repair's set-aside bytes", async () => {
    const file = path.join(dir, 'd.tape.sqlite');
    const s = await TapeStore.open(file);
    for (let i = 0; i < 3; i++) await s.append('s', message(`m${i}`, `text ${i}`), { durable: true });
    fs.writeFileSync(lockPathOf(file), '999999999'); // dropped without close: a crash
    const bytes = fs.readFileSync(journalPathOf(file));
    bytes[recordStarts(bytes).starts[1] + 20] ^= 0xff; // damage in the middle
    fs.writeFileSync(journalPathOf(file), bytes);
    const outcome = await repairTape(file);
    assert.strictEqual(outcome.status, 'repaired');
    if (outcome.status === 'repaired') assert.strictEqual(modeOf(outcome.setAsideFile), '600');
  });
});
