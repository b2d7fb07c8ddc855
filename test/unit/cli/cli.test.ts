import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { appendCommand } from '../../../src/cli/commands/append';
import { ioOf } from '../../../src/cli/output';
import { HEADER_BYTES, journalPathOf } from '../../../src/store/journal';
import { TapeStore } from '../../../src/store/tapeStore';
import * as entryModule from '../../../src/tape/entry';
import { buildCli, cli, CLI } from './build';
import { recordStarts } from './journalFrames';

/** Terminal control characters: C0 but tab and newline, DEL, C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

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
    await s.append('s1', {
      kind: 'message',
      name: 'message/user',
      payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: '请帮我修复数据库连接' },
    });
    await s.append('s1', {
      kind: 'message',
      name: 'message/assistant',
      payload: { messageId: 'a1', role: 'assistant', status: 'sent', orderSeq: 2, content: 'Reading the config.' },
    });
    await s.append('s1', { kind: 'tool_call', name: 'read_file', payload: { messageId: 'a1', toolCallId: 't1', name: 'read_file', input: { path: 'db.ts' } } });
    await s.append('s1', {
      kind: 'tool_result',
      name: 'read_file',
      payload: { messageId: 'a1', toolCallId: 't1', status: 'ok', output: 'export const url = "postgres://"' },
    });
    await s.append('s1', { kind: 'anchor', name: 'handoff/fix', payload: { name: 'handoff/fix', state: { summary: 'user wants the DB fixed' } } });
    await s.append('s1', { kind: 'message', name: 'message/user', payload: { messageId: 'u2', role: 'user', status: 'sent', orderSeq: 3, content: 'go on' } });
    await s.append('s1', {
      kind: 'message',
      name: 'message/assistant',
      payload: { messageId: 'a2', role: 'assistant', status: 'pending', orderSeq: 4, content: 'Worki' },
    });
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
    assert.deepStrictEqual(
      info.sessions.map((s: { sessionId: string; headEntryId: number; entryCount: number }) => [s.sessionId, s.headEntryId, s.entryCount]),
      [['s1', 9, 9]],
    );
    assert.deepStrictEqual(info.sessions[0].anchors, [
      { entryId: 1, name: 'session/start' },
      { entryId: 7, name: 'handoff/fix' },
    ]);
  });

  it('log --json prints entries in the JSONL format with filters', async () => {
    const r = await cli('log', tape, '--session', 's1', '--kind', 'message', '--from', '3', '--json');
    const lines = r.out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    assert.deepStrictEqual(
      lines.map((e) => e.entryId),
      [3, 4, 8, 9],
    );
    assert.deepStrictEqual(Object.keys(lines[0]), ['sessionId', 'entryId', 'kind', 'name', 'provenanceKey', 'payload', 'meta', 'createdAt']);
    assert.deepStrictEqual(JSON.parse((await cli('log', tape, '--name', 'read_file', '--to', '5', '--json')).out).entryId, 5);
  });

  it('view --json is the folded effective view; --pending includes streaming messages', async () => {
    const v = JSON.parse((await cli('view', tape, '--session', 's1', '--json')).out);
    assert.strictEqual(v.headEntryId, 9);
    assert.deepStrictEqual(
      v.messages.map((m: { messageId: string; content: string }) => [m.messageId, m.content]),
      [
        ['u1', '请帮我修复数据库连接'],
        ['a1', 'Reading the config.'],
        ['u2', 'go on'],
      ],
    );
    assert.deepStrictEqual(v.toolCalls, [{ messageId: 'a1', toolCallId: 't1', name: 'read_file', entryId: 5 }]);
    assert.deepStrictEqual(v.toolResults, [{ messageId: 'a1', toolCallId: 't1', status: 'ok', entryId: 6 }]);
    const p = JSON.parse((await cli('view', tape, '--session', 's1', '--pending', '--json')).out);
    assert.strictEqual(p.messages.length, 4);
  });

  it('context --json starts at the last reconstruction anchor; --anchor none is the full history', async () => {
    const c = JSON.parse((await cli('context', tape, '--session', 's1', '--json')).out);
    assert.strictEqual(c.anchorEntryId, 7);
    assert.deepStrictEqual(
      c.messages.map((m: { role: string; source: string }) => [m.role, m.source]),
      [
        ['system', 'tape'],
        ['user', 'synthetic'],
        ['user', 'tape'],
      ],
    );
    const full = JSON.parse((await cli('context', tape, '--session', 's1', '--anchor', 'none', '--json')).out);
    assert.strictEqual(full.anchorEntryId, null);
    assert.ok(full.messages.some((m: { content: string }) => m.content === '请帮我修复数据库连接'));
  });

  it('search --json ranks hits best first, Chinese included', async () => {
    const hits = JSON.parse((await cli('search', tape, '数据库', '--json')).out);
    assert.deepStrictEqual(
      hits.map((h: { entryId: number }) => h.entryId),
      [3],
    );
    assert.deepStrictEqual(Object.keys(hits[0]), ['sessionId', 'entryId', 'kind', 'name', 'score', 'snippet']);
    const afterDashes = await cli('search', tape, '--json', '--', '--session');
    assert.strictEqual(afterDashes.code, 0, 'after --, "--session" is the query, not an option');
    assert.deepStrictEqual(
      JSON.parse(afterDashes.out).map((h: { name: string }) => h.name),
      ['session/start'],
    );
    const limited = JSON.parse((await cli('search', tape, 'config OR db', '--kind', 'tool_call', '--limit', '1', '--json')).out);
    assert.deepStrictEqual(
      limited.map((h: { kind: string }) => h.kind),
      ['tool_call'],
    );
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
      JSON.stringify({
        kind: 'message',
        name: 'message/user',
        provenanceKey: key,
        payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content: id },
      });
    const r = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x', '--durable'], {
      input: `${entry('a', 'k')}\n${entry('b')}\n${entry('a', 'k')}\n`,
      encoding: 'utf8',
    });
    assert.strictEqual(r.status, 0, r.stderr);
    assert.deepStrictEqual(
      r.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
      [
        { entryId: 2, deduplicated: false },
        { entryId: 3, deduplicated: false },
        { entryId: 2, deduplicated: true },
      ],
    );
    const bad = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x'], {
      input: `${entry('c')}\n{"kind":"message"}\n${entry('d')}\n`,
      encoding: 'utf8',
    });
    assert.strictEqual(bad.status, 2);
    assert.match(bad.stderr, /<stdin>:2: .*\n {2}→ at name\n/);
    assert.deepStrictEqual(
      bad.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).entryId),
      [4],
    );
    const broken = spawnSync(process.execPath, [CLI, 'append', t, '--session', 'x'], { input: 'not json\n', encoding: 'utf8' });
    assert.strictEqual(broken.status, 2);
    assert.match(broken.stderr, /<stdin>:1: not a JSON line/);
    const info = JSON.parse(spawnSync(process.execPath, [CLI, 'info', t, '--json'], { encoding: 'utf8' }).stdout);
    assert.strictEqual(info.sessions[0].headEntryId, 4, 'nothing after the refused line was appended');
  });

  describe('terminal control characters in tape text', () => {
    const session = 'evil\u001b]0;owned\u0007-session';
    const content = 'clear\u001b[2J\u001b[Hscreen \u009b31mred\u001b[0m\rover\u007f\ttab\nnext line';
    let evil: string;
    before(async () => {
      evil = path.join(dir, 'evil.tape.sqlite');
      const s = await TapeStore.open(evil);
      await s.append(session, { kind: 'message', name: 'message/user', payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content } });
      await s.append(session, { kind: 'tool_call', name: 'run\u001b[8m', payload: { messageId: 'u1', toolCallId: 't1', name: 'run\u001b[8m', input: {} } });
      await s.append(session, { kind: 'anchor', name: 'handoff/\u009b2J', payload: { name: 'handoff/\u009b2J', state: { summary: 'x' } } });
      await s.close();
    });

    it('are stripped from every human output (tab and newline kept) and kept exactly in --json', async () => {
      const human: [string[], RegExp][] = [
        // log prints the payload as JSON text, where C0 controls are escapes already; C1 are not.
        [['log', evil], /evil\]0;owned-session #2 message message\/user .*clear\\u001b\[2J\\u001b\[Hscreen[^]*#4 anchor handoff\/2J /],
        [['view', evil, '--session', session], /#2 user: clear\[2J\[Hscreen 31mred\[0mover\ttab\nnext line/],
        [['context', evil, '--session', session, '--anchor', 'none'], /clear\[2J\[Hscreen 31mred\[0mover\ttab\nnext line/],
        [['search', evil, 'over'], /evil\]0;owned-session #2 message message\/user .*31mred \[0m «over» tab next line/],
        [['info', evil], /evil\]0;owned-session: head 4[^]*#4 handoff\/2J/],
      ];
      for (const [argv, expected] of human) {
        const r = await cli(...argv);
        assert.strictEqual(r.code, 0, `${argv.join(' ')}: ${r.err}`);
        assert.doesNotMatch(r.out, CONTROL, argv[0]);
        assert.match(r.out, expected, argv[0]);
      }
      const log = (await cli('log', evil, '--json')).out
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.deepStrictEqual(
        log.map((e) => [e.sessionId, e.name]),
        [
          [session, 'session/start'],
          [session, 'message/user'],
          [session, 'run\u001b[8m'],
          [session, 'handoff/\u009b2J'],
        ],
      );
      assert.strictEqual(log[1].payload.content, content);
      assert.strictEqual(JSON.parse((await cli('view', evil, '--session', session, '--json')).out).messages[0].content, content);
      assert.strictEqual(JSON.parse((await cli('search', evil, 'over', '--json')).out)[0].sessionId, session);
      assert.strictEqual(JSON.parse((await cli('info', evil, '--json')).out).sessions[0].anchors[1].name, 'handoff/\u009b2J');
    });

    it('are stripped from error messages that echo input', async () => {
      const r = await cli('view', evil, '--session', 'no\u009b2Jsuch');
      assert.strictEqual(r.code, 2);
      assert.doesNotMatch(r.err, CONTROL);
      assert.match(r.err, /no session "no2Jsuch" in this tape; sessions: evil\]0;owned-session/);
    });

    it('bidi formatting (overrides, isolates, marks) is shown as escapes in human output and in --json, whose values stay exact', async () => {
      const t = path.join(dir, 'bidi.tape.sqlite');
      const command = 'rm -rf ./build \u202e\u2066 /* keep */\u2069\u202c; echo ok\u200f';
      const s = await TapeStore.open(t);
      await s.append('b', { kind: 'message', name: 'message/user', payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: command } });
      await s.close();
      const text = (await cli('view', t, '--session', 'b')).out;
      assert.doesNotMatch(text, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
      assert.match(text, /#2 user: rm -rf \.\/build \\u202e\\u2066 \/\* keep \*\/\\u2069\\u202c; echo ok\\u200f/);
      const json = (await cli('view', t, '--session', 'b', '--json')).out;
      assert.doesNotMatch(json, /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/, 'escaped in JSON too');
      assert.strictEqual(JSON.parse(json).messages[0].content, command);
    });
  });

  it("info reports the journal's record bytes, not its preallocated file size", async () => {
    const t = path.join(dir, 'journaled.tape.sqlite');
    const s = await TapeStore.open(t);
    for (let i = 0; i < 3; i++) await s.append('s', { kind: 'system', name: 'system/prompt', payload: { content: `prompt ${i}` } }, { durable: true });
    fs.writeFileSync(`${t}.lock`, '999999999'); // dropped without close (a crash): the records stay in the journal
    const journal = fs.readFileSync(journalPathOf(t));
    const { starts, end } = recordStarts(journal);
    assert.strictEqual(starts.length, 3);
    assert.ok(journal.length >= 1 << 20, 'the journal file is preallocated');
    const info = JSON.parse((await cli('info', t, '--json')).out);
    assert.strictEqual(info.journalBytes, end - HEADER_BYTES);
    assert.match((await cli('info', t)).out, new RegExp(`\\+ ${end - HEADER_BYTES} bytes of journal records`));
    const closed = recordStarts(fs.readFileSync(journalPathOf(tape)));
    assert.strictEqual(JSON.parse((await cli('info', tape, '--json')).out).journalBytes, closed.end - HEADER_BYTES, 'a closed tape');
  });

  describe('append from a stream', () => {
    const line = (id: string, key?: string): string =>
      JSON.stringify({
        kind: 'message',
        name: 'message/user',
        provenanceKey: key,
        payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content: `${id} ✓ ünïcödé` },
      });

    /** Runs `append` on `chunks` as stdin; returns its exit, the writes to stdout and to stderr. */
    async function append(file: string, chunks: string[]): Promise<{ code: number; writes: string[]; err: string }> {
      const writes: string[] = [];
      let err = '';
      const io = ioOf({ out: (t) => writes.push(t), err: (t) => (err += t) });
      // Split inside multi-byte characters too: the stream hands over bytes, not characters.
      const input = Readable.from(chunks.map((c) => Buffer.from(c)).flatMap((b) => [b.subarray(0, 7), b.subarray(7)]));
      try {
        return { code: await appendCommand([file, '--session', 'x'], io, input), writes, err };
      } catch (e) {
        return { code: 2, writes, err: (e as Error).message };
      }
    }

    it('acknowledges each batch read together with one write, in order, with dedup flags', async () => {
      const t = path.join(dir, 'batched.tape.sqlite');
      const lines = Array.from({ length: 300 }, (_, i) => line(`m${i}`, i % 50 === 49 ? `k${i - 10}` : `k${i}`));
      const text = `${lines.join('\n')}\n`;
      const cut = text.indexOf('\n', text.length / 2) + 5; // the second chunk starts inside a line
      const r = await append(t, [text.slice(0, cut), text.slice(cut)]);
      assert.strictEqual(r.code, 0, r.err);
      assert.ok(r.writes.length <= 4, `${r.writes.length} writes for 300 acknowledgements`);
      const acks = r.writes
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      let next = 2;
      assert.deepStrictEqual(
        acks,
        lines.map((_, i) =>
          i % 50 === 49 ? { entryId: i - 10 + 2 - Math.floor((i - 10) / 50), deduplicated: true } : { entryId: next++, deduplicated: false },
        ),
      );
      const s = await TapeStore.open(t, { readOnly: true });
      try {
        assert.strictEqual(s.headEntryId('x'), 1 + 300 - 6);
        assert.strictEqual(s.getEntry('x', 2)?.payload.content, 'm0 ✓ ünïcödé');
      } finally {
        await s.close();
      }
    });

    it('validates each entry once', async () => {
      const real = entryModule.validateNewEntry;
      let calls = 0;
      Object.assign(entryModule, { validateNewEntry: (...a: Parameters<typeof real>) => (calls++, real(...a)) });
      try {
        const r = await append(path.join(dir, 'once.tape.sqlite'), [`${Array.from({ length: 40 }, (_, i) => line(`v${i}`)).join('\n')}\n`]);
        assert.strictEqual(r.code, 0, r.err);
      } finally {
        Object.assign(entryModule, { validateNewEntry: real });
      }
      assert.strictEqual(calls, 40);
    });

    it('stops at a refused line in the middle of a batch: the lines before it are in, none after', async () => {
      const t = path.join(dir, 'refused.tape.sqlite');
      const invalid = await append(t, [
        `${line('a')}\n\n${line('b')}\n{"kind":"message","name":"message/user","payload":{}}\n${line('c')}\n`,
        `${line('d')}\n`,
      ]);
      assert.strictEqual(invalid.code, 2);
      assert.match(invalid.err, /<stdin>:4: entry .*payload/);
      assert.deepStrictEqual(
        invalid.writes
          .join('')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).entryId),
        [2, 3],
      );
      const broken = await append(t, [`${line('e')}\n${line('f')}\nnot json\n${line('g')}\n`]);
      assert.strictEqual(broken.code, 2);
      assert.match(broken.err, /<stdin>:3: not a JSON line/);
      assert.deepStrictEqual(
        broken.writes
          .join('')
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).entryId),
        [4, 5],
      );
      const s = await TapeStore.open(t, { readOnly: true });
      try {
        assert.deepStrictEqual(
          s.entries('x').map((e) => e.payload.messageId ?? null),
          [null, 'a', 'b', 'e', 'f'],
        );
      } finally {
        await s.close();
      }
    });
  });
});
