import * as assert from 'assert';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseArgs } from '../../../src/cli/args';
import { run } from '../../../src/cli/main';
import { modelFromFlags } from '../../../src/cli/modelFlags';
import { OutputClosedError } from '../../../src/cli/output';
import { loadSqlJs } from '../../../src/store/sqljs';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { CC_SESSION, claudeCodeRecords, writeClaudeCode } from '../ingest/fixtures';
import { buildCli, cli, CLI } from './build';

/** Raw C0 but the line feed, DEL, C1, U+2028/U+2029: none may reach stdout, not even in --json. */
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
/** What a crash looks like on stderr: a stack trace or Node's report of an unhandled error. */
const CRASH = /\n\s+at |Unhandled|RangeError|Maximum call stack/;

const message = (i: number, content = `entry ${i}`): NewEntry => ({
  kind: 'message',
  name: 'message/user',
  payload: { messageId: `m${i}`, role: 'user', status: 'sent', orderSeq: i, content },
});

const nested = (open: string, close: string, n: number): string => `${open.repeat(n)}1${close.repeat(n)}`;

describe('agent-tape on hostile input', function () {
  this.timeout(60_000);
  let dir: string;
  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-hostile-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('names every object has (constructor, toString, __proto__, hasOwnProperty, valueOf) are unknown commands', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf']) {
      const r = await cli(name, 'x');
      assert.strictEqual(r.code, 2, name);
      assert.match(r.err, new RegExp(`unknown command "${name}"`));
    }
  });

  it('transcript record types named like what every object has are counted like any other', async () => {
    const extra = ['constructor', '__proto__', 'toString', 'constructor'].map((type, i) => ({
      type,
      uuid: `x${i}`,
      sessionId: CC_SESSION,
      timestamp: '2026-01-02T03:05:00.000Z',
    }));
    const src = path.join(dir, 'proto-types');
    fs.mkdirSync(src);
    const r = await cli('ingest', writeClaudeCode(src, [...claudeCodeRecords(), ...extra]), path.join(dir, 'proto-types.tape.sqlite'), '--json');
    assert.strictEqual(r.code, 0, r.err);
    const { skipped } = JSON.parse(r.out) as { skipped: Record<string, unknown> };
    assert.deepStrictEqual([skipped.constructor, skipped.__proto__, skipped.toString], [2, 1, 1]);
    assert.deepStrictEqual(
      Object.getOwnPropertyNames(skipped)
        .filter((k) => ['constructor', '__proto__', 'toString'].includes(k))
        .sort(),
      ['__proto__', 'constructor', 'toString'],
    );
  });

  it('--api-key-env naming what every object has (constructor, __proto__) is an unset variable, not a function as the key', () => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const p = parseArgs(['--base-url', 'http://127.0.0.1:1/v1', '--model', 'm', '--api-key-env', name], {
        valued: ['base-url', 'model', 'api-key-env'],
        positional: [],
      });
      const model = modelFromFlags(p, { ...process.env }) as unknown as { options: { apiKey: unknown } };
      assert.strictEqual(model.options.apiKey, '', name);
    }
  });

  describe('JSON nested 200,000 deep', () => {
    const first =
      '{"sessionId":"s","entryId":1,"kind":"anchor","name":"session/start","provenanceKey":null,"payload":{"name":"session/start","state":null},"meta":{},"createdAt":1}';
    const deepLine = (open: string, close: string) =>
      `{"sessionId":"s","entryId":2,"kind":"event","name":"x/y","provenanceKey":null,"payload":{"name":"x/y","data":${nested(open, close, 200_000)}},"meta":{},"createdAt":1}`;

    it('in a .tape.jsonl: info, log and import exit 2 naming the file and line, with no stack trace', () => {
      for (const [open, close] of [
        ['[', ']'],
        ['{"a":', '}'],
      ]) {
        const src = path.join(dir, 'deep.tape.jsonl');
        fs.writeFileSync(src, `${first}\n${deepLine(open, close)}\n`);
        for (const argv of [
          ['info', src],
          ['log', src, '--json'],
          ['import', src, path.join(dir, 'deep.tape.sqlite')],
        ]) {
          const r = spawnSync(process.execPath, [CLI, ...argv], { encoding: 'utf8' });
          assert.strictEqual(r.status, 2, `${argv[0]}: ${r.stderr}`);
          assert.match(
            r.stderr,
            new RegExp(`^agent-tape: ${src.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:2: nests arrays and objects more than 256 levels deep`),
          );
          assert.doesNotMatch(r.stderr, CRASH);
          assert.strictEqual(r.stdout, '');
        }
        assert.ok(!fs.existsSync(path.join(dir, 'deep.tape.sqlite')));
      }
    });

    it('on append stdin: exit 2 naming <stdin> and the line, the lines before it appended', async () => {
      const tape = path.join(dir, 'append-deep.tape.sqlite');
      const ok = JSON.stringify(message(1));
      const deep = `{"kind":"event","name":"x/y","payload":{"name":"x/y","data":${nested('[', ']', 200_000)}}}`;
      const r = spawnSync(process.execPath, [CLI, 'append', tape, '--session', 's'], { input: `${ok}\n${deep}\n${ok}\n`, encoding: 'utf8' });
      assert.strictEqual(r.status, 2, r.stderr);
      assert.match(r.stderr, /^agent-tape: <stdin>:2: nests arrays and objects more than 256 levels deep/);
      assert.doesNotMatch(r.stderr, CRASH);
      assert.strictEqual(r.stdout, '{"entryId":2,"deduplicated":false}\n');
      const store = await TapeStore.open(tape, { readOnly: true });
      assert.strictEqual(store.headEntryId('s'), 2);
      await store.close();
    });

    it('in handoff --state: a usage error, nothing appended', async () => {
      const tape = path.join(dir, 'handoff-deep.tape.sqlite');
      const store = await TapeStore.open(tape);
      await store.append('s', message(1));
      await store.close();
      for (const state of [`{"a":${nested('[', ']', 200_000)}}`, `{"a":${nested('{"b":', '}', 200_000)}}`]) {
        const r = await cli('handoff', tape, '--session', 's', '--name', 'n', '--summary', 'x', '--state', state);
        assert.strictEqual(r.code, 2, r.err);
        assert.match(r.err, /--state nests arrays and objects more than 256 levels deep/);
      }
      const after = await TapeStore.open(tape, { readOnly: true });
      assert.strictEqual(after.headEntryId('s'), 2);
      await after.close();
    });
  });

  it('a .tape.sqlite whose payload column holds no JSON object: view, context and search exit 2 naming the file and entry', async () => {
    const tape = path.join(dir, 'rows.tape.sqlite');
    const store = await TapeStore.open(tape);
    await store.append('s', message(1));
    await store.checkpoint();
    await store.close();
    fs.rmSync(`${tape}.tapelog`, { force: true });
    const SQL = await loadSqlJs();
    for (const payload of ['not json', '[1,2]', 'null']) {
      const db = new SQL.Database(fs.readFileSync(tape));
      db.run('UPDATE entries SET payload = ? WHERE entry_id = 2', [payload]);
      const hostile = path.join(dir, 'hostile-rows.tape.sqlite');
      fs.writeFileSync(hostile, db.export());
      db.close();
      for (const argv of [
        ['view', hostile, '--session', 's'],
        ['context', hostile, '--session', 's'],
        ['search', hostile, 'entry'],
      ]) {
        const r = await cli(...argv);
        assert.strictEqual(r.code, 2, `${argv[0]} ${payload}: ${r.err}`);
        assert.strictEqual(r.err, `agent-tape: ${hostile}: entry 2 of session "s": its payload is not a JSON object\n`);
      }
      fs.rmSync(hostile);
    }
  });

  describe('a closed stdout', () => {
    let big: string;
    before(async () => {
      big = path.join(dir, 'big.tape.sqlite');
      const store = await TapeStore.open(big);
      await store.appendMany(
        's',
        Array.from({ length: 20_000 }, (_, i) => message(i + 1, `entry ${i} ${'x'.repeat(200)}`)),
      );
      await store.close();
    });

    /** Runs the CLI and closes its stdout once the first chunk has arrived, as `| head -1` does. */
    function closedEarly(
      argv: string[],
      stdin?: (child: ReturnType<typeof spawn>) => void,
    ): Promise<{ code: number | null; signal: string | null; err: string; chunks: number }> {
      const child = spawn(process.execPath, [CLI, ...argv], { stdio: ['pipe', 'pipe', 'pipe'] });
      let err = '';
      let chunks = 0;
      child.stderr.setEncoding('utf8').on('data', (t: string) => (err += t));
      child.stdout.on('data', () => {
        chunks++;
        child.stdout.destroy();
      });
      child.stdin.on('error', () => undefined); // the child may be gone before all of stdin is written
      if (stdin) stdin(child);
      else child.stdin.end();
      return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, err, chunks })));
    }

    it('log --json on 20,000 entries ends quietly with exit 1: no EPIPE stack trace, no unhandled error event', async () => {
      const r = await closedEarly(['log', big, '--json']);
      assert.strictEqual(r.err, '');
      assert.strictEqual(r.code, 1);
      assert.strictEqual(r.chunks, 1);
    });

    it('append stops reading once nothing reads its acknowledgements', async () => {
      const tape = path.join(dir, 'acks.tape.sqlite');
      let i = 0;
      let timer: NodeJS.Timeout | undefined;
      const r = await closedEarly(['append', tape, '--session', 's'], (child) => {
        // Lines keep coming and stdin stays open: only the closed stdout can end the command.
        timer = setInterval(() => child.stdin?.write(`${JSON.stringify(message(++i))}\n`), 5);
      });
      clearInterval(timer);
      assert.strictEqual(r.err, '');
      assert.strictEqual(r.code, 1);
    });

    it('a command stops at the first write that finds stdout closed, not after formatting the rest', async () => {
      let writes = 0;
      const code = await run(['log', big, '--json'], {
        out: () => {
          writes++;
          throw new OutputClosedError();
        },
        err: (t) => assert.fail(`nothing on stderr, got ${t}`),
      });
      assert.strictEqual(code, 1);
      assert.strictEqual(writes, 1);
    });
  });

  it('--json output and exports carry no raw control character, and the values are exact', async () => {
    const tape = path.join(dir, 'controls.tape.sqlite');
    const session = 'evil\u001b]0;owned\u0007\u009b2J';
    const content = 'a\u0000b\u001b[31mc\u007fd\u0085e\u009bf\u2028g\u2029h\ud800i\udfffj😀\t\r\n';
    const store = await TapeStore.open(tape);
    await store.append(session, { ...message(1, content), meta: { [`k\u0090${content}`]: content } });
    await store.append(session, { kind: 'anchor', name: 'handoff/\u009bx', payload: { name: 'handoff/\u009bx', state: { summary: content } } });
    await store.close();
    const outputs: [string[], (out: string) => void][] = [
      [
        ['log', tape, '--json'],
        (out) => {
          const lines = out
            .trim()
            .split('\n')
            .map((l) => JSON.parse(l));
          assert.deepStrictEqual(
            lines.map((e) => e.sessionId),
            [session, session, session],
          );
          assert.strictEqual(lines[1].payload.content, content);
          assert.deepStrictEqual(lines[1].meta, { [`k\u0090${content}`]: content });
          assert.strictEqual(lines[2].name, 'handoff/\u009bx');
        },
      ],
      [['view', tape, '--session', session, '--json'], (out) => assert.strictEqual(JSON.parse(out).messages[0].content, content)],
      [['context', tape, '--session', session, '--anchor', 'none', '--json'], (out) => assert.strictEqual(JSON.parse(out).messages[0].content, content)],
      [['search', tape, 'handoff', '--json'], (out) => assert.strictEqual(JSON.parse(out)[0].sessionId, session)],
      [['info', tape, '--json'], (out) => assert.strictEqual(JSON.parse(out).sessions[0].anchors[1].name, 'handoff/\u009bx')],
    ];
    for (const [argv, check] of outputs) {
      const r = spawnSync(process.execPath, [CLI, ...argv]);
      assert.strictEqual(r.status, 0, `${argv[0]}: ${r.stderr.toString()}`);
      const out = r.stdout.toString('utf8');
      assert.doesNotMatch(out, RAW_CONTROL, argv[0]);
      assert.ok(!out.includes('\ufffd'), `${argv[0]}: a lone surrogate was written raw (and became U+FFFD)`);
      check(out);
    }
  });

  it('an error echoing a file name with an escape sequence has it stripped', async () => {
    const r = await cli('info', path.join(dir, 'x\u001b]0;owned\u0007\u009b2J.tape.sqlite'));
    assert.strictEqual(r.code, 2);
    assert.doesNotMatch(r.err, RAW_CONTROL);
    assert.match(r.err, /x\]0;owned2J\.tape\.sqlite: does not exist/);
  });

  it('hostile flag values and search queries are usage errors (exit 2) with a clear message', async () => {
    const tape = path.join(dir, 'flags.tape.sqlite');
    const store = await TapeStore.open(tape);
    await store.append('s', message(1, 'hello world'));
    await store.close();
    const cases: [string[], RegExp][] = [
      [['fork', tape, '--session', 's', '--at', '-1'], /--at must be a non-negative integer/],
      [
        ['fork', tape, '--session', 's', '--at', '99999999999999999999'],
        /--at must be a non-negative integer up to 9007199254740991, got "99999999999999999999"/,
      ],
      [['log', tape, '--from', '1e309'], /--from must be a non-negative integer/],
      [['log', tape, '--to', '99999999999999999999'], /--to must be a non-negative integer up to/],
      [['search', tape, 'hello', '--limit', '1e309'], /--limit must be a non-negative integer/],
      [['search', tape, 'hello', '--limit', '99999999999999999999'], /--limit must be a non-negative integer up to/],
      [['search', tape, 'hello', '--limit', '0'], /bad search query: limit must be a positive integer/],
      [['view', tape, '--session='], /--session must not be empty/],
      [['fork', tape, '--session', ''], /--session must not be empty/],
      [['search', tape, 'hello OR'], /bad search query/],
      [['search', tape, '"hello'], /bad search query: unterminated quote/],
      [['search', tape, '(hello'], /bad search query: unbalanced "\("/],
      [['search', tape, '*'], /bad search query: "\*" has no words/],
      [['search', tape, Array(20_000).fill('hello').join(' OR ')], /bad search query: .*FTS expression tree is too large/],
      [['view', tape, '--session', 's\u001b[31m'], /no session "s\\u001b\[31m" in this tape/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await cli(...argv);
      assert.strictEqual(r.code, 2, `${argv.join(' ').slice(0, 80)}: ${r.err}`);
      assert.match(r.err, pattern);
      assert.doesNotMatch(r.err, RAW_CONTROL);
    }
    // append reads stdin only after its flags are checked: an empty --session was an exit 1 from inside the store.
    const r = spawnSync(process.execPath, [CLI, 'append', tape, '--session='], { input: `${JSON.stringify(message(2))}\n`, encoding: 'utf8' });
    assert.strictEqual(r.status, 2, r.stderr);
    assert.match(r.stderr, /--session must not be empty/);
  });
});
