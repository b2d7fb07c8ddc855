import { EVAL_REQUEST, EVAL_START, EVAL_SUMMARY, VIEW_ASSEMBLED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { evaluationSessionsOf, readEvaluation, type EvaluationReport } from '../../../src/tape/evaluation/evaluationReport';
import { runCli } from '../../support/cliProcess';
import { startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from '../../support/fakeOpenAiServer';
import { buildCli } from './build';

const SESSION = 's1';
const KEY = 'sk-eval-93c1d0';

/** The answers `agent-tape run` records: a turn that reads a file then answers, and a second turn answered in text. */
const TOOL_TURN: FakeReply[] = [
  {
    stream: [{ text: 'Let me look.' }, { toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path":"notes.txt"}' } }],
    usage: { prompt_tokens: 800, completion_tokens: 12 },
  },
  { stream: [{ text: 'The file says ' }, { text: 'hello.' }], usage: { prompt_tokens: 900, completion_tokens: 5, cached_tokens: 700 } },
];
const SECOND_TURN: FakeReply[] = [
  { stream: [{ text: 'You asked what notes.txt says; it says hello.' }], usage: { prompt_tokens: 950, completion_tokens: 11 } },
];

/**
 * `agent-tape eval` on a session `agent-tape run` recorded (three requests: a tool call, its
 * answer, a second turn's answer), against the scripted OpenAI-compatible server, which records
 * every body it receives.
 */
describe('agent-tape eval (the bundled CLI against a scripted OpenAI-compatible server)', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  let recordedBodies: Record<string, unknown>[];
  let original: RawEntry[];
  const servers: FakeOpenAiServer[] = [];
  const serve = async (replies: FakeReply[]) => {
    const s = await startFakeOpenAiServer(replies, 60_000);
    servers.push(s);
    return s;
  };

  before(buildCli);
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-eval-'));
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'hello from the file\n');
    tape = path.join(dir, 'agent.tape.sqlite');
    const srv = await serve([...TOOL_TURN, ...SECOND_TURN]);
    for (const prompt of ['What does notes.txt say?', 'And what did I ask?']) {
      const r = await runCli(['run', tape, '--session', SESSION, '--base-url', srv.baseURL, '--model', 'fake-model', '--workspace', ws, '--', prompt]);
      assert.strictEqual(r.code, 0, r.err);
    }
    recordedBodies = srv.requests.map((q) => q.body);
    assert.strictEqual(recordedBodies.length, 3);
    original = await rawEntries(SESSION);
  });
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function rawEntries(sessionId: string): Promise<RawEntry[]> {
    const s = await TapeStore.open(tape, { readOnly: true });
    try {
      return s.rawEntries(sessionId);
    } finally {
      await s.close();
    }
  }

  async function withStore<T>(fn: (s: TapeStore) => T): Promise<T> {
    const s = await TapeStore.open(tape, { readOnly: true });
    try {
      return fn(s);
    } finally {
      await s.close();
    }
  }

  const evalArgs = (baseURL: string, extra: string[] = []) => ['eval', tape, '--session', SESSION, '--base-url', baseURL, '--model', 'fake-model', ...extra];
  const requestIds = () => withStore((s) => s.entries(SESSION, { kind: 'event', name: VIEW_ASSEMBLED }).map((e) => e.entryId));
  const tapeFiles = () => fs.readdirSync(dir).filter((f) => f.startsWith('agent.tape.sqlite') && !f.endsWith('.lock'));
  const bytesOf = () => Object.fromEntries(tapeFiles().map((f) => [f, fs.readFileSync(path.join(dir, f)).toString('base64')]));

  it('against the same answers: every request agrees, each re-sent body equals the original, the evaluation is a session of its own and the original is unchanged', async () => {
    const srv = await serve([...TOOL_TURN, ...SECOND_TURN]);
    const r = await runCli(evalArgs(srv.baseURL, ['--json']), { OPENAI_API_KEY: KEY });
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as EvaluationReport;
    const ids = await requestIds();

    assert.deepStrictEqual(
      srv.requests.map((q) => q.body),
      recordedBodies,
      'the same messages, tools and parameters as the recorded requests',
    );
    assert.strictEqual(srv.requests[0].headers.authorization, `Bearer ${KEY}`);
    assert.deepStrictEqual([report.sessionId, report.model], [SESSION, 'fake-model']);
    assert.deepStrictEqual(
      report.requests.map((q) => [q.entryId, q.status, q.recorded.finish, q.rerun?.finish, q.sent?.promptHashMatches, q.sent?.toolsHashMatches]),
      [
        [ids[0], 'agree', 'tool_calls', 'tool_calls', true, true],
        [ids[1], 'agree', 'text', 'text', true, true],
        [ids[2], 'agree', 'text', 'text', true, true],
      ],
    );
    const [first, second] = report.requests;
    assert.deepStrictEqual(first.rerun?.toolCalls, [{ name: 'read_file', arguments: { path: 'notes.txt' } }]);
    assert.deepStrictEqual([first.toolNamesEqual, first.toolArgumentsEqual, second.textSimilarity], [true, true, 1]);
    assert.deepStrictEqual(second.recorded.tokens, { input: 900, output: 5, cached: 700 });
    assert.deepStrictEqual(second.rerun?.tokens, { input: 900, output: 5, cached: 700 });
    assert.deepStrictEqual(
      [
        report.summary.requests,
        report.summary.agree,
        report.summary.diverged,
        report.summary.failed,
        report.summary.firstDivergence,
        report.summary.modelFailed,
      ],
      [3, 3, 0, 0, null, false],
    );
    assert.deepStrictEqual(report.summary.tokens.delta, { input: 0, output: 0, cached: 0 });
    assert.strictEqual(report.summary.tokens.requests, 3);

    assert.match(report.evalSessionId ?? '', /^s1::eval::/);
    const evalSession = report.evalSessionId!;
    const evalEntries = await withStore((s) => s.entries(evalSession));
    assert.deepStrictEqual(
      evalEntries.map((e) => `${e.kind} ${e.name}`),
      ['anchor session/start', `anchor ${EVAL_START}`, `event ${EVAL_REQUEST}`, `event ${EVAL_REQUEST}`, `event ${EVAL_REQUEST}`, `event ${EVAL_SUMMARY}`],
    );
    const read = await withStore((s) => ({
      report: readEvaluation(s, evalSession),
      found: evaluationSessionsOf(
        s.sessions().map((x) => x.sessionId),
        s,
        SESSION,
      ),
    }));
    assert.deepStrictEqual(read.report, report, 'the evaluation session reads back as the report printed');
    assert.deepStrictEqual(read.found, [evalSession]);
    assert.deepStrictEqual(await rawEntries(SESSION), original, 'the evaluated session is unchanged, entry for entry');
    const haystack =
      fs.readFileSync(tape).toString('latin1') +
      tapeFiles()
        .map((f) => fs.readFileSync(path.join(dir, f)).toString('latin1'))
        .join('');
    assert.ok(!haystack.includes(KEY), 'the API key is not on the tape');
  });

  it('against a model that answers one request with another tool call: exactly that request diverged, the others agree (each judged on its recorded context)', async () => {
    const other: FakeReply = { stream: [{ text: 'Let me look.' }, { toolCall: { index: 0, id: 'x1', name: 'list_dir', arguments: '{"path":"."}' } }] };
    const srv = await serve([other, TOOL_TURN[1], ...SECOND_TURN]);
    const r = await runCli(evalArgs(srv.baseURL, ['--json']));
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as EvaluationReport;
    const ids = await requestIds();
    assert.deepStrictEqual(
      report.requests.map((q) => q.status),
      ['diverged', 'agree', 'agree'],
    );
    assert.deepStrictEqual([report.requests[0].toolNamesEqual, report.requests[0].finishEqual], [false, true]);
    assert.deepStrictEqual(report.summary.firstDivergence, {
      entryId: ids[0],
      turnId: report.requests[0].turnId,
      requestSeq: 1,
      reason: 'called list_dir, recorded read_file',
    });
    assert.deepStrictEqual([report.summary.agree, report.summary.diverged, report.summary.failed], [2, 1, 0]);
    // The second request is sent with the recorded read_file result, not with anything list_dir would have returned.
    assert.deepStrictEqual(srv.requests[1].body, recordedBodies[1]);
  });

  it('the table: a row per request and the summary; same arguments in another key order and spacing still agree', async () => {
    const reordered: FakeReply = {
      stream: [{ text: 'Looking.' }, { toolCall: { index: 0, id: 'z9', name: 'read_file', arguments: '{ "path" : "notes.txt" }' } }],
    };
    const srv = await serve([reordered, { stream: [{ text: 'Something else entirely, unrelated words.' }] }, ...SECOND_TURN]);
    const r = await runCli(evalArgs(srv.baseURL, ['--no-record']));
    assert.strictEqual(r.code, 0, r.err);
    const ids = await requestIds();
    const lines = r.out.split('\n');
    assert.match(lines[0], /^n\s+entry\s+request\s+status/);
    assert.match(lines[1], new RegExp(`^1\\s+#${ids[0]}\\s+\\S+/1\\s+agree\\s+tool_calls -> tool_calls`));
    assert.match(
      lines[2],
      new RegExp(
        `^2\\s+#${ids[1]}\\s+\\S+/2\\s+diverged\\s+text -> text\\s+0\\.00\\s+900/5/700 -> \\S+\\s+\\d+ -> \\d+\\s+text similarity 0\\.00 is below 0\\.5`,
      ),
    );
    assert.match(lines[3], new RegExp(`^3\\s+#${ids[2]}\\s+\\S+/1\\s+agree\\s+text -> text\\s+1\\.00`));
    assert.match(r.out, /^s1 against openai-compatible\/fake-model: 3 requests: 2 agree, 1 diverged, 0 failed$/m);
    assert.match(r.out, new RegExp(`^first divergence: #${ids[1]} \\(\\S+/2\\): text similarity 0\\.00 is below 0\\.5$`, 'm'));
    assert.match(r.out, /^not recorded \(--no-record\)$/m);
    assert.match(r.err, /^\[eval\] 1\/3 #\d+ agree$/m);
    const sessions = await withStore((s) => s.sessions().map((x) => x.sessionId));
    assert.deepStrictEqual(sessions, [SESSION], '--no-record writes nothing');
  });

  it('--requests A-B evaluates just those requests, in order', async () => {
    const srv = await serve([TOOL_TURN[1], ...SECOND_TURN]);
    const r = await runCli(evalArgs(srv.baseURL, ['--requests', '2-3', '--json']));
    assert.strictEqual(r.code, 0, r.err);
    const report = JSON.parse(r.out) as EvaluationReport;
    const ids = await requestIds();
    assert.deepStrictEqual(
      report.requests.map((q) => [q.entryId, q.status]),
      [
        [ids[1], 'agree'],
        [ids[2], 'agree'],
      ],
    );
    assert.deepStrictEqual(report.start.requestIds, ids.slice(1));
    assert.deepStrictEqual(
      srv.requests.map((q) => q.body),
      recordedBodies.slice(1),
    );
  });

  it('a server that refuses: exit 1, the failure recorded, no further request sent; the original unchanged', async () => {
    const srv = await serve([{ status: 401, body: { error: { message: 'bad key' } } }, ...TOOL_TURN, ...SECOND_TURN]);
    const r = await runCli(evalArgs(srv.baseURL, ['--json']));
    assert.strictEqual(r.code, 1, r.err);
    const report = JSON.parse(r.out) as EvaluationReport;
    assert.strictEqual(srv.requests.length, 1, 'a refusal every request would meet stops the evaluation');
    assert.deepStrictEqual(
      report.requests.map((q) => [q.status, q.error?.source, q.error?.code, q.rerun]),
      [['failed', 'model', 'auth', null]],
    );
    assert.match(report.requests[0].reason ?? '', /refused the credentials \(HTTP 401\)/);
    assert.deepStrictEqual(
      [report.summary.failed, report.summary.notEvaluated, report.summary.modelFailed, report.summary.stopped?.reason],
      [1, 2, true, 'model_failed'],
    );
    const recorded = await withStore((s) => readEvaluation(s, report.evalSessionId!));
    assert.deepStrictEqual(
      recorded.requests.map((q) => q.status),
      ['failed'],
    );
    assert.strictEqual(recorded.summary.stopped?.reason, 'model_failed');
    assert.deepStrictEqual(await rawEntries(SESSION), original);
  });

  for (const [what, extra, message] of [
    ['an unknown session', ['--session', 'nope'], /no session "nope" in this tape; sessions: s1/],
    ['a request range past the session', ['--requests', '2-9'], /--requests 2-9: session s1 has 3 recorded requests/],
    ['a malformed range', ['--requests', '3-2'], /--requests takes A-B/],
    ['a missing system prompt file', ['--system-prompt', '/nonexistent/prompt.txt'], /--system-prompt \/nonexistent\/prompt\.txt/],
    // A device would be read for ever: refused at once, as every file the CLI is handed.
    ['a system prompt that is a device', ['--system-prompt', '/dev/zero'], /--system-prompt \/dev\/zero: .*not a regular file/],
  ] as const) {
    it(`bad input (${what}): exit 2, nothing sent, the tape's files byte-identical`, async () => {
      const srv = await serve([...TOOL_TURN, ...SECOND_TURN]);
      const before = bytesOf();
      const args = evalArgs(srv.baseURL);
      const at = args.indexOf(extra[0]);
      const r = await runCli(at >= 0 ? [...args.slice(0, at), ...extra, ...args.slice(at + 2)] : [...args, ...extra]);
      assert.strictEqual(r.code, 2, r.err);
      assert.match(r.err, message);
      assert.strictEqual(srv.requests.length, 0);
      assert.deepStrictEqual(bytesOf(), before);
    });
  }
});
