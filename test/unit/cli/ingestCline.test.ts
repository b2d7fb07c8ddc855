import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from '../../support/cliProcess';
import {
  CLINE_TASK,
  KILO_ID,
  ROO_CHILD,
  ROO_ID,
  ROO_PARENT,
  ROO_TASK,
  rooChildFiles,
  rooParentFiles,
  writeClineTask,
  writeRooXmlTask,
  writeTask,
} from '../ingest/clineFixtures';
import { buildCli, cli, sessionsOf } from './build';

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('agent-tape ingest of Cline, Roo Code and Kilo Code tasks', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-cline-'));
    tape = path.join(dir, 'out', 'agents.tape.sqlite');
    fs.mkdirSync(path.dirname(tape));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the built CLI ingests a task folder --from roo, wherever it is kept, and appends nothing the second time', async () => {
    await buildCli();
    // A copy of a Roo Code task outside VS Code's storage: only --from says whose it is.
    const task = writeRooXmlTask(path.join(dir, 'backup'), 'copied');
    const r = await runCli(['ingest', '--from', 'roo', task, tape, '--json']);
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { appended: number; reports: { format: string; sessions: string[] }[] };
    assert.deepStrictEqual(
      report.reports.map((x) => [x.format, x.sessions]),
      [['roo', [`roo:${ROO_TASK}`]]],
    );
    assert.ok(report.appended > 10);
    assert.deepStrictEqual(await sessionsOf(tape), [`roo:${ROO_TASK}`]);
    const again = await runCli(['ingest', '--from', 'roo', path.join(task, 'ui_messages.json'), tape, '--json']);
    assert.deepStrictEqual([again.code, (JSON.parse(again.out) as { appended: number }).appended], [0, 0]);
  });

  it("tells each agent's tasks by the storage they are in; a damaged task is reported by name and the others are ingested", async () => {
    const storage = path.join(dir, 'globalStorage');
    writeClineTask(storage);
    writeRooXmlTask(storage, KILO_ID);
    writeTask(storage, ROO_ID, ROO_PARENT, rooParentFiles());
    writeTask(storage, ROO_ID, ROO_CHILD, rooChildFiles());
    const damaged = path.join(writeTask(storage, ROO_ID, 'damaged', { ui: [] }), 'ui_messages.json');
    fs.writeFileSync(damaged, '[{"ts": 1, "type": "say"');
    const r = await cli('ingest', storage, tape);
    assert.strictEqual(r.code, 1, r.err);
    // The parent reads its subtask with it, and the subtask is a source of its own as well.
    assert.match(r.out, /^4 transcripts, 5 sessions, \d+ entries appended to /);
    assert.match(r.err, new RegExp(`could not be read, the others were ingested: ${escaped(damaged)}: is not valid JSON`));
    assert.deepStrictEqual(await sessionsOf(tape), [`cline:${CLINE_TASK}`, `kilo:${ROO_TASK}`, `roo:${ROO_PARENT}`, `roo:${ROO_CHILD}`]);
    fs.rmSync(path.dirname(damaged), { recursive: true });
    const again = await cli('ingest', storage, tape, '--json');
    assert.strictEqual(again.code, 0, again.err);
    const report = JSON.parse(again.out) as { appended: number; reports: { format: string }[] };
    assert.deepStrictEqual([report.appended, report.reports.map((x) => x.format).sort()], [0, ['cline', 'kilo', 'roo', 'roo']]);
  });
});
