import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { run } from '../../../src/cli/main';
import { TapeStore } from '../../../src/store/tapeStore';
import { buildCli, CLI } from './build';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('agent-tape CLI', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-cli-'));
    tape = path.join(dir, 'demo.tape.sqlite');
    const s = await TapeStore.open(tape);
    await s.append('s1', { kind: 'system', name: 'system/prompt', payload: { content: 'You are helpful.' } });
    await s.append('s1', { kind: 'message', name: 'message/user', payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: '请帮我修复数据库连接' } });
    await s.append('s1', { kind: 'message', name: 'message/assistant', payload: { messageId: 'a1', role: 'assistant', status: 'sent', orderSeq: 2, content: 'Reading the config.' } });
    await s.append('s1', { kind: 'tool_call', name: 'read_file', payload: { messageId: 'a1', toolCallId: 't1', name: 'read_file', input: { path: 'db.ts' } } });
    await s.append('s1', { kind: 'tool_result', name: 'read_file', payload: { messageId: 'a1', toolCallId: 't1', status: 'ok', output: 'export const url = "postgres://"' } });
    await s.append('s1', { kind: 'anchor', name: 'handoff/fix', payload: { name: 'handoff/fix', state: { summary: 'user wants the DB fixed' } } });
    await s.append('s1', { kind: 'message', name: 'message/user', payload: { messageId: 'u2', role: 'user', status: 'sent', orderSeq: 3, content: 'go on' } });
    await s.append('s1', { kind: 'message', name: 'message/assistant', payload: { messageId: 'a2', role: 'assistant', status: 'pending', orderSeq: 4, content: 'Worki' } });
    await s.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('--help prints usage and exits 0; no command exits 2', async () => {
    const h = await cli('--help');
    assert.strictEqual(h.code, 0);
    assert.match(h.out, /usage: agent-tape/);
    assert.strictEqual((await cli()).code, 2);
  });

  it('usage errors and bad input exit 2 with a clear message on stderr', async () => {
    const cases: [string[], RegExp][] = [
      [['frobnicate'], /unknown command "frobnicate"/],
      [['view', tape], /--session is required/],
      [['log', tape, '--kind', 'nope'], /--kind must be one of/],
      [['log', tape, '--bogus'], /unknown option --bogus/],
      [['info', path.join(dir, 'missing.tape.sqlite')], /missing\.tape\.sqlite: does not exist/],
      [['info', path.join(dir, 'x.txt')], /not a tape file name/],
      [['search', tape, '"open'], /bad search query: unterminated quote/],
      [['view', tape, '--session', 'nope'], /no session "nope" in this tape; sessions: s1/],
      [['context', tape, '--session', 's1', '--anchor', 'handoff/none'], /no anchor named "handoff\/none"/],
      [['import', path.join(dir, 'x.tape.jsonl'), path.join(dir, 'y.tape.jsonl')], /y\.tape\.jsonl: import writes \*\.tape\.sqlite files/],
      [['import', tape, path.join(dir, 'y.tape.sqlite')], /demo\.tape\.sqlite: import reads \*\.tape\.jsonl files/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await cli(...argv);
      assert.strictEqual(r.code, 2, argv.join(' '));
      assert.match(r.err, pattern);
      assert.strictEqual(r.out, '');
    }
  });

  it('info --json: sessions, counts, heads, anchors, size', async () => {
    const r = await cli('info', tape, '--json');
    assert.strictEqual(r.code, 0);
    const info = JSON.parse(r.out);
    assert.strictEqual(info.bytes, fs.statSync(tape).size);
    assert.deepStrictEqual(info.sessions.map((s: { sessionId: string; headEntryId: number; entryCount: number }) => [s.sessionId, s.headEntryId, s.entryCount]), [['s1', 9, 9]]);
    assert.deepStrictEqual(info.sessions[0].anchors, [{ entryId: 1, name: 'session/start' }, { entryId: 7, name: 'handoff/fix' }]);
  });

  it('log --json prints entries in the JSONL format with filters', async () => {
    const r = await cli('log', tape, '--session', 's1', '--kind', 'message', '--from', '3', '--json');
    const lines = r.out.trim().split('\n').map((l) => JSON.parse(l));
    assert.deepStrictEqual(lines.map((e) => e.entryId), [3, 4, 8, 9]);
    assert.deepStrictEqual(Object.keys(lines[0]), ['sessionId', 'entryId', 'kind', 'name', 'provenanceKey', 'payload', 'meta', 'createdAt']);
    assert.deepStrictEqual(JSON.parse((await cli('log', tape, '--name', 'read_file', '--to', '5', '--json')).out).entryId, 5);
  });

  it('view --json is the folded effective view; --pending includes streaming messages', async () => {
    const v = JSON.parse((await cli('view', tape, '--session', 's1', '--json')).out);
    assert.strictEqual(v.headEntryId, 9);
    assert.deepStrictEqual(v.messages.map((m: { messageId: string; content: string }) => [m.messageId, m.content]), [['u1', '请帮我修复数据库连接'], ['a1', 'Reading the config.'], ['u2', 'go on']]);
    assert.deepStrictEqual(v.toolCalls, [{ messageId: 'a1', toolCallId: 't1', name: 'read_file', entryId: 5 }]);
    assert.deepStrictEqual(v.toolResults, [{ messageId: 'a1', toolCallId: 't1', status: 'ok', entryId: 6 }]);
    const p = JSON.parse((await cli('view', tape, '--session', 's1', '--pending', '--json')).out);
    assert.strictEqual(p.messages.length, 4);
  });

  it('context --json starts at the last reconstruction anchor; --anchor none is the full history', async () => {
    const c = JSON.parse((await cli('context', tape, '--session', 's1', '--json')).out);
    assert.strictEqual(c.anchorEntryId, 7);
    assert.deepStrictEqual(c.messages.map((m: { role: string; source: string }) => [m.role, m.source]), [['system', 'tape'], ['user', 'synthetic'], ['user', 'tape']]);
    const full = JSON.parse((await cli('context', tape, '--session', 's1', '--anchor', 'none', '--json')).out);
    assert.strictEqual(full.anchorEntryId, null);
    assert.ok(full.messages.some((m: { content: string }) => m.content === '请帮我修复数据库连接'));
  });

  it('search --json ranks hits best first, Chinese included', async () => {
    const hits = JSON.parse((await cli('search', tape, '数据库', '--json')).out);
    assert.deepStrictEqual(hits.map((h: { entryId: number }) => h.entryId), [3]);
    assert.deepStrictEqual(Object.keys(hits[0]), ['sessionId', 'entryId', 'kind', 'name', 'score', 'snippet']);
    const afterDashes = await cli('search', tape, '--json', '--', '--session');
    assert.strictEqual(afterDashes.code, 0, 'after --, "--session" is the query, not an option');
    assert.deepStrictEqual(JSON.parse(afterDashes.out).map((h: { name: string }) => h.name), ['session/start']);
    const limited = JSON.parse((await cli('search', tape, 'config OR db', '--kind', 'tool_call', '--limit', '1', '--json')).out);
    assert.deepStrictEqual(limited.map((h: { kind: string }) => h.kind), ['tool_call']);
  });

  it('import/export round trip; a .tape.jsonl works as a read-only tape; destinations are never overwritten', async () => {
    const jsonl = path.join(dir, 'demo.tape.jsonl');
    assert.strictEqual((await cli('export', tape, jsonl)).code, 0);
    const again = path.join(dir, 'again.tape.sqlite');
    assert.strictEqual((await cli('import', jsonl, again)).code, 0);
    assert.strictEqual((await cli('view', jsonl, '--session', 's1', '--json')).out, (await cli('view', again, '--session', 's1', '--json')).out);
    const before = fs.readFileSync(again);
    const r = await cli('import', jsonl, again);
    assert.strictEqual(r.code, 2);
    assert.match(r.err, /already exists/);
    assert.deepStrictEqual(fs.readFileSync(again), before);
  });

  it('append (the bundled CLI) reads JSON Lines from stdin, creates the tape, reports dedupes, refuses bad lines', () => {
    const t = path.join(dir, 'new.tape.sqlite');
    const entry = (id: string, key?: string): string =>
      JSON.stringify({ kind: 'message', name: 'message/user', provenanceKey: key, payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content: id } });
    const r = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x', '--durable'], { input: `${entry('a', 'k')}\n${entry('b')}\n${entry('a', 'k')}\n`, encoding: 'utf8' });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.deepStrictEqual(r.stdout.trim().split('\n').map((l) => JSON.parse(l)), [
      { entryId: 2, deduplicated: false },
      { entryId: 3, deduplicated: false },
      { entryId: 2, deduplicated: true },
    ]);
    const bad = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x'], { input: `${entry('c')}\n{"kind":"message"}\n${entry('d')}\n`, encoding: 'utf8' });
    assert.strictEqual(bad.status, 2);
    assert.match(bad.stderr, /<stdin>:2: .*name/);
    assert.deepStrictEqual(bad.stdout.trim().split('\n').map((l) => JSON.parse(l).entryId), [4]);
    const broken = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x'], { input: 'not json\n', encoding: 'utf8' });
    assert.strictEqual(broken.status, 2);
    assert.match(broken.stderr, /<stdin>:1: not a JSON line/);
    const info = JSON.parse(spawnSync(process.execPath, [CLI, 'info', t, '--json'], { encoding: 'utf8' }).stdout);
    assert.strictEqual(info.sessions[0].headEntryId, 4, 'nothing after the refused line was appended');
  });
});
