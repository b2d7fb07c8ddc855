import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runCli } from '../../support/cliProcess';
import { writeCodex } from '../ingest/fixtures';
import {
  JSONL_AGENT,
  JSONL_SESSION,
  jsonl,
  jsonlRecords,
  V38_AGENT,
  V38_SESSION,
  v38Session,
  writeJsonlSession,
  writeV38Session,
} from '../ingest/geminiFixtures';
import { buildCli, cli, sessionsOf } from './build';

describe('agent-tape ingest of Gemini CLI sessions', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-gemini-'));
    tape = path.join(dir, 'out', 'agents.tape.sqlite');
    fs.mkdirSync(path.dirname(tape));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('walks ~/.gemini, telling recordings by their path: a damaged one is reported by name and the others are ingested, once', async () => {
    const jsonlFile = writeJsonlSession(dir);
    writeV38Session(dir);
    const damaged = path.join(path.dirname(jsonlFile), 'session-2026-08-03T10-00-eeeeeeee.jsonl');
    fs.writeFileSync(damaged, 'not json at all\n{"also": "not gemini"}\n');
    const r = await cli('ingest', path.join(dir, '.gemini'), tape);
    assert.strictEqual(r.code, 1, r.err);
    assert.match(r.out, /^2 transcripts, 4 sessions, \d+ entries appended to /);
    assert.match(r.out, /lines skipped by type: .*message\/mystery 1/);
    assert.match(
      r.err,
      new RegExp(`could not be read, the others were ingested: ${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not a Gemini CLI chat recording`),
    );
    assert.deepStrictEqual(await sessionsOf(tape), [
      `gemini:${JSONL_SESSION}`,
      `gemini:${JSONL_SESSION}/agent-${JSONL_AGENT}`,
      `gemini:${V38_SESSION}`,
      `gemini:${V38_SESSION}/agent-${V38_AGENT}`,
    ]);
    fs.rmSync(damaged);
    const again = await cli('ingest', path.join(dir, '.gemini'), tape, '--json');
    assert.strictEqual(again.code, 0, again.err);
    const report = JSON.parse(again.out) as { appended: number; reports: { format: string }[] };
    assert.deepStrictEqual([report.appended, report.reports.map((x) => x.format)], [0, ['gemini', 'gemini']]);
  });

  it('the built CLI reads a copied recording by its content, and a .jsonl one with --from gemini; refuses another format as gemini', async () => {
    await buildCli();
    const exported = path.join(dir, 'exported.json');
    fs.writeFileSync(exported, JSON.stringify(v38Session(), null, 2));
    const byContent = await runCli(['ingest', exported, tape, '--json']);
    assert.strictEqual(byContent.code, 0, byContent.err);
    assert.deepStrictEqual(
      (JSON.parse(byContent.out) as { reports: { format: string; sessions: string[] }[] }).reports.map((x) => [x.format, x.sessions]),
      [['gemini', [`gemini:${V38_SESSION}`]]],
    );
    const copy = path.join(dir, 'copy.jsonl');
    fs.writeFileSync(copy, jsonl(jsonlRecords()));
    const named = await runCli(['ingest', copy, tape, '--from', 'gemini']);
    assert.strictEqual(named.code, 0, named.err);
    assert.match(named.out, /^1 transcripts, 1 sessions, \d+ entries appended/);
    assert.deepStrictEqual(await sessionsOf(tape), [`gemini:${JSONL_SESSION}`, `gemini:${V38_SESSION}`]);
    const wrong = await runCli(['ingest', writeCodex(dir), tape, '--from', 'gemini']);
    assert.strictEqual(wrong.code, 2);
    assert.match(wrong.err, /is not a Gemini CLI chat recording/);
  });
});
