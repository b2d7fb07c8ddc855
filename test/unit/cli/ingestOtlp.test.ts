import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { request, SESSION, span, turn } from '../ingest/otlpFixtures';
import { cli, ROOT, sessionsOf } from './build';

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

  it("a valid trace file without GenAI spans (another instrumentation's) says what it looked for: exit 2 alone, exit 1 beside a file with sessions", async () => {
    // Shaped as Claude Code's beta traces: vendor span names and attributes, no gen_ai.operation.name.
    const vendor = path.join(dir, 'vendor.json');
    fs.writeFileSync(
      vendor,
      JSON.stringify(
        request([
          span({ id: 1, name: 'claude_code.interaction', start: 0, end: 900, a: { 'user_prompt.length': 12 } }),
          span({ id: 2, parent: 1, name: 'claude_code.llm_request', start: 10, end: 400, a: { model: 'claude-x', input_tokens: 10 } }),
        ]),
      ),
    );
    const alone = await cli('ingest', vendor, tape, '--from', 'otlp');
    assert.strictEqual(alone.code, 2, alone.err);
    assert.match(alone.out, /^1 transcripts, 0 sessions, 0 entries appended/);
    assert.ok(alone.err.includes(`no OpenTelemetry (OTLP/JSON) session in ${vendor} (passed over: span/other 2); looked for `), alone.err);
    assert.match(alone.err, /GenAI spans: gen_ai\.operation\.name .*invoke_agent, chat/);
    assert.strictEqual(fs.existsSync(tape), false, 'a run that found nothing leaves no tape');

    const good = path.join(dir, 'copilot.json');
    fs.writeFileSync(good, JSON.stringify(request(turn(false))));
    const both = await cli('ingest', vendor, good, tape, '--json');
    assert.strictEqual(both.code, 1, both.err);
    const report = JSON.parse(both.out) as { sessions: number; noSession: { file: string; why: string }[] };
    assert.strictEqual(report.sessions, 1);
    assert.deepStrictEqual(
      report.noSession.map((n) => n.file),
      [vendor],
    );
    assert.deepStrictEqual(await sessionsOf(tape), [SESSION]);
  });

  it('ingests the traces Gemini CLI 0.61.0 really sent (test/fixtures/agents/gemini-cli-0.61.0-otlp), told by content, then nothing more with --from', async () => {
    const fixture = path.join(ROOT, 'test', 'fixtures', 'agents', 'gemini-cli-0.61.0-otlp', 'traces.jsonl');
    const file = path.join(dir, 'traces.jsonl');
    fs.copyFileSync(fixture, file);
    const conversations = new Set(fs.readFileSync(file, 'utf8').match(/"gen_ai\.conversation\.id","value":\{"stringValue":"[^"]+"/g));
    const r = await cli('ingest', file, tape, '--json');
    assert.strictEqual(r.code, 0, r.err);
    // Each conversation, and the subagent one of them ran.
    assert.strictEqual((JSON.parse(r.out) as { sessions: number }).sessions, conversations.size + 1);
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
