import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeFileError } from '../../../src/store/errors';
import { encodeRecord, HEADER_BYTES, journalPathOf } from '../../../src/store/journal';
import { TapeStore } from '../../../src/store/tapeStore';
import { fingerprint, message } from '../store/helpers';
import { buildCli, cli, CLI } from './build';
import { recordStarts } from './journalFrames';

interface Damaged {
  file: string;
  /** Contents of the entries in the records before the damage, by entry id. */
  prefix: Map<number, string>;
  keptRecords: number;
  /** Where the damage starts and where the used part of the journal ends. */
  damageAt: number;
  usedEnd: number;
}

/**
 * A crashed tape (a dead writer's lock, `records` journal records never checkpointed) whose record
 * `damagedRecord` (0-based) has a flipped byte in its body: damage in the middle, refused on open.
 */
async function damagedTape(dir: string, name: string, records: number, damagedRecord: number): Promise<Damaged> {
  const file = path.join(dir, `${name}.tape.sqlite`);
  const s = await TapeStore.open(file);
  // One durable append per record; the first record carries the session's bootstrap anchor too.
  for (let i = 0; i < records; i++) await s.append('s', message(`m${i}`, `text ${i}`), { durable: true });
  fs.writeFileSync(`${file}.lock`, '999999999'); // the store is dropped without close: a crash
  const j = journalPathOf(file);
  const bytes = fs.readFileSync(j);
  const { starts, end } = recordStarts(bytes);
  assert.strictEqual(starts.length, records);
  bytes[starts[damagedRecord] + 20] ^= 0xff;
  fs.writeFileSync(j, bytes);
  const prefix = new Map<number, string>();
  for (let i = 0; i < damagedRecord; i++) prefix.set(i + 2, `text ${i}`);
  return { file, prefix, keptRecords: damagedRecord, damageAt: starts[damagedRecord], usedEnd: end };
}

async function assertPrefixOpens(d: Damaged, readOnly: boolean): Promise<void> {
  const s = await TapeStore.open(d.file, { readOnly });
  try {
    assert.strictEqual(s.headEntryId('s'), d.prefix.size + 1);
    for (const [id, content] of d.prefix) assert.strictEqual(s.getEntry('s', id)?.payload.content, content);
  } finally {
    await s.close();
  }
}

const damagedFiles = (file: string): string[] =>
  fs
    .readdirSync(path.dirname(file))
    .filter((f) => f.startsWith(`${path.basename(journalPathOf(file))}.damaged-`) && !f.includes('.tmp-')) // a temp file left by a kill is not a set-aside file
    .map((f) => path.join(path.dirname(file), f));

describe('agent-tape repair', function () {
  this.timeout(120_000);
  let dir: string;
  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-repair-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps the records before damage in the middle, sets the rest aside exactly, and the tape opens again', async () => {
    const d = await damagedTape(dir, 'mid', 6, 2);
    const j = journalPathOf(d.file);
    const setAside = fs.readFileSync(j).subarray(d.damageAt, d.usedEnd);
    await assert.rejects(
      TapeStore.open(d.file, { readOnly: true }),
      (e: Error) => e instanceof TapeFileError && /damaged at byte .*agent-tape repair/.test(e.message),
    );

    const r = await cli('repair', d.file, '--json');
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out);
    assert.strictEqual(report.status, 'repaired');
    assert.strictEqual(report.records, 2);
    assert.strictEqual(report.recordBytes, d.damageAt - HEADER_BYTES);
    assert.strictEqual(report.setAsideBytes, d.usedEnd - d.damageAt);
    assert.match(report.damage, /damaged at byte/);
    assert.deepStrictEqual(damagedFiles(d.file), [report.setAsideFile]);
    assert.deepStrictEqual(fs.readFileSync(report.setAsideFile), setAside, 'the set-aside file holds exactly the bytes from the damage on');
    assert.strictEqual(fs.statSync(j).size, d.damageAt, 'the journal is its intact prefix');
    await assertPrefixOpens(d, true);
    await assertPrefixOpens(d, false);
  });

  it('says what it kept and set aside in plain text; a second run finds nothing to repair', async () => {
    const d = await damagedTape(dir, 'text', 4, 1);
    const r = await cli('repair', d.file);
    assert.strictEqual(r.code, 0, r.err);
    assert.match(r.out, /damaged at byte \d+/);
    assert.match(r.out, new RegExp(`kept 1 records \\(${d.damageAt - HEADER_BYTES} bytes\\); set aside ${d.usedEnd - d.damageAt} bytes .* in .*\\.damaged-`));
    const again = await cli('repair', d.file);
    assert.strictEqual(again.code, 0);
    assert.match(again.out, /is not damaged \(1 records/);
    assert.strictEqual(damagedFiles(d.file).length, 1);
  });

  it('changes nothing on a healthy journal or one with only a torn tail (which open drops)', async () => {
    const d = await damagedTape(dir, 'healthy', 3, 0);
    const j = journalPathOf(d.file);
    const bytes = fs.readFileSync(j);
    bytes[d.damageAt + 20] ^= 0xff; // undo the damage
    fs.writeFileSync(j, bytes);
    // The dead writer's lock is taken over and released: the one file that goes.
    const listing = (): string[] =>
      fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('healthy') && !f.endsWith('.lock'))
        .sort();
    const before = { journal: fingerprint(j), snapshot: fingerprint(d.file), listing: listing() };
    const healthy = await cli('repair', d.file, '--json');
    assert.strictEqual(healthy.code, 0, healthy.err);
    assert.deepStrictEqual(JSON.parse(healthy.out), { status: 'healthy', journal: j, records: 3, recordBytes: d.usedEnd - HEADER_BYTES });
    assert.deepStrictEqual({ journal: fingerprint(j), snapshot: fingerprint(d.file), listing: listing() }, before);

    // A record torn by a crash: its frame claims more bytes than were written before the zeros.
    const torn = Buffer.alloc(30);
    torn.writeUInt32LE(1000, 0);
    torn.fill(7, 8);
    const tornBytes = Buffer.from(bytes);
    torn.copy(tornBytes, d.usedEnd);
    fs.writeFileSync(j, tornBytes);
    const tornBefore = fingerprint(j);
    const r = await cli('repair', d.file);
    assert.strictEqual(r.code, 0, r.err);
    assert.match(r.out, /torn record that opening the tape drops \(30 bytes, after 3 records/);
    assert.deepStrictEqual(fingerprint(j), tornBefore);
    assert.deepStrictEqual(damagedFiles(d.file), []);
  });

  it('sets aside a record that replay fails on (which fails every open) from that record on, and the tape opens again', async () => {
    const d = await damagedTape(dir, 'unreplayable', 3, 0);
    const j = journalPathOf(d.file);
    const bytes = fs.readFileSync(j);
    bytes[d.damageAt + 20] ^= 0xff; // undo the damage: every record is intact
    // Two more intact records that write entries the journal already holds: SQLite refuses them.
    const { starts } = recordStarts(bytes);
    const body = (k: number): Buffer => bytes.subarray(starts[k] + 16, starts[k + 1] ?? d.usedEnd);
    const extra = Buffer.concat([encodeRecord(4, body(1)), encodeRecord(5, body(2))]);
    extra.copy(bytes, d.usedEnd);
    fs.writeFileSync(j, bytes);
    await assert.rejects(TapeStore.open(d.file, { readOnly: true }), /cannot be replayed onto its snapshot: .*UNIQUE constraint failed.*agent-tape repair/);

    const r = await cli('repair', d.file);
    assert.strictEqual(r.code, 0, r.err);
    assert.match(
      r.out,
      new RegExp(`has record 4 at byte ${d.usedEnd}, which cannot be replayed onto its snapshot \\(UNIQUE constraint failed[^)]*\\), and 1 records after it`),
    );
    assert.match(r.out, new RegExp(`kept 3 records \\(${d.usedEnd - HEADER_BYTES} bytes\\); set aside ${extra.length} bytes`));
    const [setAside] = damagedFiles(d.file);
    assert.deepStrictEqual(fs.readFileSync(setAside), extra);
    const s = await TapeStore.open(d.file, { readOnly: true });
    assert.deepStrictEqual(
      s.entries('s').map((e) => e.payload.content ?? e.name),
      ['session/start', 'text 0', 'text 1', 'text 2'],
    );
    await s.close();
    assert.match((await cli('repair', d.file)).out, /is not damaged \(3 records/);
  });

  it('refuses while a writer holds the tape, and refuses non-tapes, changing nothing', async () => {
    const d = await damagedTape(dir, 'locked', 3, 1);
    const j = journalPathOf(d.file);
    const before = fingerprint(j);
    fs.writeFileSync(`${d.file}.lock`, String(process.pid)); // a live writer: this process
    const r = await cli('repair', d.file);
    assert.strictEqual(r.code, 2);
    assert.match(r.err, /open for writing by another process/);
    assert.deepStrictEqual(fingerprint(j), before);
    assert.deepStrictEqual(damagedFiles(d.file), []);
    fs.rmSync(`${d.file}.lock`);
    assert.match((await cli('repair', path.join(dir, 'x.tape.jsonl'))).err, /repair works on \*\.tape\.sqlite files/);
    assert.match((await cli('repair', path.join(dir, 'missing.tape.sqlite'))).err, /missing\.tape\.sqlite: does not exist/);
  });

  it('a SIGKILL at any moment of a repair leaves a tape that opens, or repairs again, with every record of the intact prefix and the set-aside bytes kept', async () => {
    const fixture = await damagedTape(dir, 'fixture', 40, 15);
    const setAside = fs.readFileSync(journalPathOf(fixture.file)).subarray(fixture.damageAt, fixture.usedEnd);
    // How long an undisturbed repair takes, to spread the kills over it.
    const t0 = performance.now();
    const probe = copyOf(fixture, 'probe');
    assert.strictEqual(spawnSync(process.execPath, [CLI, 'repair', probe.file], { encoding: 'utf8' }).status, 0);
    const took = performance.now() - t0;
    let killedMidway = 0;
    for (let trial = 0; trial < 30; trial++) {
      const d = copyOf(fixture, `trial${trial}`);
      const code = await new Promise<number | null>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'repair', d.file], { stdio: 'ignore' });
        const timer = setTimeout(() => child.kill('SIGKILL'), Math.random() * took * 1.2);
        child.on('exit', (c) => (clearTimeout(timer), resolve(c)));
      });
      const j = journalPathOf(d.file);
      const saved = damagedFiles(d.file).map((f) => fs.readFileSync(f));
      for (const s of saved) assert.deepStrictEqual(s, setAside, `trial ${trial}: a set-aside file is whole`);
      const truncated = fs.statSync(j).size === d.damageAt;
      if (truncated) assert.strictEqual(saved.length, 1, `trial ${trial}: the journal lost its tail only once the bytes were set aside`);
      else assert.deepStrictEqual(fs.readFileSync(j).subarray(d.damageAt, d.usedEnd), setAside, `trial ${trial}: the journal still holds them`);
      if (code === null && !truncated) killedMidway++;
      if (!truncated) {
        const again = await cli('repair', d.file);
        assert.strictEqual(again.code, 0, `trial ${trial}: ${again.err}`);
      }
      await assertPrefixOpens(d, false);
    }
    assert.ok(killedMidway > 0, 'some repairs were killed before they finished');
  });

  function copyOf(d: Damaged, name: string): Damaged {
    const file = path.join(dir, `${name}.tape.sqlite`);
    fs.copyFileSync(d.file, file);
    fs.copyFileSync(journalPathOf(d.file), journalPathOf(file));
    return { ...d, file };
  }
});
