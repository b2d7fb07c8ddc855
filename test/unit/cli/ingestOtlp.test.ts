import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { request, SESSION, turn } from '../ingest/otlpFixtures';
import { cli, sessionsOf } from './build';

describe('agent-tape ingest --from otlp', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-otlp-'));
    tape = path.join(dir, 'agents.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ingests a file exporter JSONL named on the command line, told by its first bytes or by --from, once', async () => {
    const file = path.join(dir, 'otel-traces.jsonl');
    fs.writeFileSync(file, JSON.stringify(request(turn(true))) + '\n');
    const r = await cli('ingest', file, tape, '--json');
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { appended: number; reports: { format: string }[] };
    assert.deepStrictEqual(
      report.reports.map((x) => x.format),
      ['otlp'],
    );
    assert.ok(report.appended > 0);
    assert.deepStrictEqual(await sessionsOf(tape), [SESSION]);
    const again = await cli('ingest', file, tape, '--from', 'otlp', '--json');
    assert.strictEqual(again.code, 0, again.err);
    assert.strictEqual((JSON.parse(again.out) as { appended: number }).appended, 0);
  });

  it('refuses a file that is no trace request by name, and creates no tape', async () => {
    const file = path.join(dir, 'other.json');
    fs.writeFileSync(file, '{"traces":[]}');
    const r = await cli('ingest', file, tape, '--from', 'otlp');
    assert.notStrictEqual(r.code, 0);
    assert.match(r.err, /other\.json.*not OTLP\/JSON/);
    assert.strictEqual(fs.existsSync(tape), false);
  });
});
