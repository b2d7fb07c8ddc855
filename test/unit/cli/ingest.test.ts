import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import { CC_SESSION, CODEX_SESSION, jsonl, writeClaudeCode, writeCodex } from '../ingest/fixtures';
import { startCli } from '../../support/cliProcess';
import { until } from '../store/helpers';
import { buildCli, cli } from './build';

describe('agent-tape ingest', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-cli-'));
    tape = path.join(dir, 'out', 'agents.tape.sqlite');
    fs.mkdirSync(path.dirname(tape));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('ingests a directory of both formats into a new tape, prints the report, and appends nothing the second time', async () => {
    const src = path.join(dir, 'src');
    fs.mkdirSync(path.join(src, 'claude'), { recursive: true });
    writeClaudeCode(path.join(src, 'claude'));
    writeCodex(path.join(src, 'codex'));
    fs.writeFileSync(path.join(src, 'history.jsonl'), '{"session_id":"x","text":"not a transcript"}\n');

    const r = await cli('ingest', src, tape);
    assert.strictEqual(r.err, '');
    assert.strictEqual(r.code, 0);
    const lines = r.out.split('\n');
    assert.match(lines[0], /^2 transcripts, 3 sessions, \d+ entries appended to /);
    assert.strictEqual(
      lines[1],
      'lines skipped by type: event_msg/agent_message 1, event_msg/token_count 1, event_msg/user_message 1, file-history-snapshot 1, mystery 1, progress 1, weird 1',
    );
    assert.strictEqual(lines[2], `not a transcript, passed over: ${path.join(src, 'history.jsonl')}`);

    const again = await cli('ingest', src, tape, '--json');
    assert.strictEqual(again.code, 0);
    const report = JSON.parse(again.out) as { appended: number; sessions: number; reports: { format: string }[] };
    assert.deepStrictEqual([report.appended, report.sessions, report.reports.map((x) => x.format)], [0, 3, ['claude-code', 'codex']]);

    const store = await TapeStore.open(tape, { readOnly: true });
    try {
      assert.deepStrictEqual(
        store
          .sessions()
          .map((s) => s.sessionId)
          .sort(),
        [`claude-code:${CC_SESSION}`, `claude-code:${CC_SESSION}/agent-abc`, `codex:${CODEX_SESSION}`],
      );
    } finally {
      await store.close();
    }
  });

  it('reports a torn last line, and the next run appends the completed record', async () => {
    const file = writeCodex(dir);
    fs.appendFileSync(file, '{"timestamp":"2026-01-02T03:05:00.000Z","type":"response_item","payload":{"type":"mess');
    const r = await cli('ingest', file, tape, '--from', 'codex');
    assert.strictEqual(r.code, 0);
    assert.match(r.out, new RegExp(`torn last line, left for the next run: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\n`));
    fs.appendFileSync(file, 'age","role":"assistant","content":[{"type":"output_text","text":"Bye."}]}}\n');
    const next = await cli('ingest', file, tape, '--json');
    assert.deepStrictEqual([next.code, (JSON.parse(next.out) as { appended: number; tornLastLine: string[] }).appended], [0, 1]);
  });

  it('exits 2 on usage errors and on a file that is not a transcript of the named format', async () => {
    const file = writeCodex(dir);
    const wrong = await cli('ingest', file, tape, '--from', 'claude-code');
    assert.strictEqual(wrong.code, 2);
    assert.match(wrong.err, /is a Codex transcript, not Claude Code/);
    assert.strictEqual((await cli('ingest', file, tape, '--from', 'copilot')).code, 2);
    assert.strictEqual((await cli('ingest', tape)).code, 2);
    assert.strictEqual((await cli('ingest', file, path.join(dir, 'x.tape.jsonl'))).code, 2);
    assert.strictEqual((await cli('ingest', path.join(dir, 'missing.jsonl'), tape)).code, 2);
  });

  it('--follow appends what the agent writes next, until Ctrl+C (exit 130), and the tape then holds it', async () => {
    await buildCli();
    const src = path.join(dir, 'src');
    fs.mkdirSync(src);
    const file = writeClaudeCode(src);
    const following = startCli(['ingest', '--follow', src, tape]);
    await until(() => following.out().includes('entries appended'), 'the first report');
    const before = following.out();
    // The agent writes a new prompt and answer, in two chunks as a process flushing its buffer would.
    const next = jsonl([
      {
        type: 'user',
        uuid: 'u9',
        parentUuid: 'a7',
        sessionId: CC_SESSION,
        timestamp: '2026-01-02T03:05:00.000Z',
        message: { role: 'user', content: 'And the changelog?' },
      },
    ]);
    fs.appendFileSync(file, next.slice(0, 20));
    fs.appendFileSync(file, next.slice(20));
    await until(() => following.out().slice(before.length).includes(`${file}: 1 entries appended`), 'the followed record');
    following.child.kill('SIGINT');
    const r = await following.done;
    assert.strictEqual(r.code, 130, r.err);
    const store = await TapeStore.open(tape, { readOnly: true });
    try {
      const users = store
        .entries(`claude-code:${CC_SESSION}`)
        .filter((e) => e.name === 'message/user')
        .map((e) => e.payload.content);
      assert.strictEqual(users.at(-1), 'And the changelog?');
    } finally {
      await store.close();
    }
  });
});
