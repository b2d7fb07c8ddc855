import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cli, ROOT, sessionsOf } from './build';

const FIXTURE = path.join(ROOT, 'test/fixtures/agents/copilot-cli-1.0.102');
const ID = fs.readdirSync(path.join(FIXTURE, 'session-state'))[0];

describe('agent-tape ingest of Copilot CLI sessions', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-copilot-'));
    tape = path.join(dir, 'agents.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ingests a copied ~/.copilot folder with --from copilot-cli, its subagent as a child session, once', async () => {
    const r = await cli('ingest', FIXTURE, tape, '--from', 'copilot-cli', '--json');
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { appended: number; reports: { format: string }[] };
    assert.deepStrictEqual(
      report.reports.map((x) => x.format),
      ['copilot-cli'],
    );
    assert.ok(report.appended > 0);
    const sessions = await sessionsOf(tape);
    assert.strictEqual(sessions.length, 2);
    assert.strictEqual(sessions[0], `copilot-cli:${ID}`);
    assert.match(sessions[1], new RegExp(`^copilot-cli:${ID}/agent-[0-9a-f-]+$`));
    const again = await cli('ingest', FIXTURE, tape, '--from', 'copilot-cli', '--json');
    assert.strictEqual((JSON.parse(again.out) as { appended: number }).appended, 0);
  });
});
