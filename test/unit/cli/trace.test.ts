import * as assert from 'assert';
import { execFileSync } from 'child_process';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { agentTraceRecord } from '../../../src/blame/agentTrace';
import { TapeStore } from '../../../src/store/tapeStore';
import { attempt, call, ingested, prompt } from '../blame/blameTape';
import { cli } from './build';

/** The test's own git: no user or system configuration. */
const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.invalid', '-c', 'commit.gpgSign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: cwd, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

const sha256 = (text: string): string => `sha256:${createHash('sha256').update(text).digest('hex')}`;

describe('agent-tape trace (Agent Trace records)', function () {
  this.timeout(30_000);
  let dir: string;
  let ws: string;
  let tape: string;
  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-trace-')));
    ws = path.join(dir, 'repo', 'pkg');
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'a.txt'), 'mine\none\ntwo\n');
    fs.writeFileSync(path.join(ws, 'b.txt'), 'bee\n');
    tape = path.join(dir, 'w.tape.sqlite');
    const store = await TapeStore.open(tape);
    const c = { sessionId: 'claude-code:c', turnId: 't' };
    await store.appendMany(c.sessionId, [
      ...ingested(c.sessionId, 'claude-code', '/tmp/clone'),
      prompt(c, 'write one and two'),
      attempt(c.sessionId, 'claude-opus-5-5'),
      ...call(c, 'Write', { file_path: 'a.txt', content: 'one\ntwo\n' }),
      ...call(c, 'Write', { file_path: 'gone.txt', content: 'gone\n' }),
    ]);
    const x = { sessionId: 'codex:x', turnId: 't' };
    await store.appendMany(x.sessionId, [
      ...ingested(x.sessionId, 'codex', '/tmp/clone2'),
      ...call(x, 'apply_patch', '*** Begin Patch\n*** Add File: b.txt\n+bee\n*** End Patch\n'),
    ]);
    await store.close();
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const records = (out: string) =>
    out
      .trimEnd()
      .split('\n')
      .map((l) => agentTraceRecord.parse(JSON.parse(l)));

  it("writes one RFC 0.1.0 record per session with the lines it wrote, the entry's address, the model and the lines' hash", async () => {
    const r = await cli('trace', tape, '--workspace', ws);
    assert.strictEqual(r.code, 0, r.err);
    const [claude, codex] = records(r.out);
    assert.strictEqual(claude.version, '0.1.0');
    assert.strictEqual(claude.vcs, undefined, 'no repository, no vcs');
    assert.deepStrictEqual(claude.files, [
      {
        path: 'a.txt',
        conversations: [
          {
            url: `agent-tape:${tape}#claude-code%3Ac/5`,
            contributor: { type: 'ai', model_id: 'claude-opus-5-5' },
            ranges: [{ start_line: 2, end_line: 3, content_hash: sha256('one\ntwo') }],
            related: [{ type: 'session', url: `agent-tape:${tape}#claude-code%3Ac` }],
          },
        ],
      },
    ]);
    assert.deepStrictEqual(
      codex.files.map((f) => [f.path, f.conversations[0].url, f.conversations[0].contributor]),
      [['b.txt', `agent-tape:${tape}#codex%3Ax/3`, { type: 'ai', model_id: 'model-x' }]],
    );
    assert.notStrictEqual(claude.id, codex.id);
    const again = await cli('trace', tape, '--workspace', ws);
    assert.strictEqual(again.out, r.out, 'the same tape and files give the same records, ids included');
  });

  it("names the workspace's git commit and its paths from the repository's top, keeps only --session's records, and writes a new --out file", async () => {
    git(path.join(dir, 'repo'), 'init', '-q');
    git(path.join(dir, 'repo'), 'add', '.');
    git(path.join(dir, 'repo'), 'commit', '-q', '-m', 'x');
    const head = git(ws, 'rev-parse', 'HEAD');
    const out = path.join(dir, 'trace.jsonl');
    const r = await cli('trace', tape, '--workspace', ws, '--session', 'codex:x', '--out', out);
    assert.strictEqual(r.code, 0, r.err);
    assert.strictEqual(r.out, '');
    const [only, ...rest] = records(fs.readFileSync(out, 'utf8'));
    assert.deepStrictEqual(rest, []);
    assert.deepStrictEqual(only.vcs, { type: 'git', revision: head });
    assert.deepStrictEqual(
      only.files.map((f) => f.path),
      ['pkg/b.txt'],
    );
    const twice = await cli('trace', tape, '--workspace', ws, '--out', out);
    assert.strictEqual(twice.code, 2);
    assert.match(twice.err, /already exists/);
  });

  it('exits 2 for a session the tape does not have', async () => {
    const r = await cli('trace', tape, '--workspace', ws, '--session', 'nope');
    assert.strictEqual(r.code, 2);
    assert.match(r.err, /no session nope/);
  });
});
