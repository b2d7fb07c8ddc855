import * as assert from 'assert';
import { TempWorkspace } from './fixture';
import { MAX_TEXT_MATCHES } from '../../../../src/agent/tools/searchText';

describe('search_text', () => {
  let ws: TempWorkspace;
  beforeEach(
    () =>
      (ws = new TempWorkspace({
        '.gitignore': 'dist/\n',
        'src/a.ts': 'const x = 1;\nfunction foo() {}\nfoo(x);\n',
        'src/b.js': 'foo.bar\nfooXbar\n',
        'dist/a.js': 'function foo() {}\n',
        'data.bin': Buffer.concat([Buffer.from('foo'), Buffer.from([0, 0, 0])]),
      })),
  );
  afterEach(() => ws.dispose());

  it('prints path:line: text for each matching line, skipping ignored and binary files', async () => {
    assert.deepStrictEqual(await ws.call('search_text', { query: 'foo' }), {
      status: 'ok',
      output: 'src/a.ts:2: function foo() {}\nsrc/a.ts:3: foo(x);\nsrc/b.js:1: foo.bar\nsrc/b.js:2: fooXbar',
    });
  });

  it('treats the query literally unless isRegex is set', async () => {
    assert.strictEqual((await ws.call('search_text', { query: 'foo.bar' })).output, 'src/b.js:1: foo.bar');
    assert.strictEqual((await ws.call('search_text', { query: 'foo.bar', isRegex: true })).output, 'src/b.js:1: foo.bar\nsrc/b.js:2: fooXbar');
    assert.strictEqual((await ws.call('search_text', { query: '^foo\\(', isRegex: true })).output, 'src/a.ts:3: foo(x);');
  });

  it('limits the files searched with include', async () => {
    assert.strictEqual((await ws.call('search_text', { query: 'foo', include: '**/*.ts' })).output, 'src/a.ts:2: function foo() {}\nsrc/a.ts:3: foo(x);');
    assert.deepStrictEqual(await ws.call('search_text', { query: 'foo', include: '*.md' }), { status: 'ok', output: 'no matches for "foo" in *.md' });
  });

  it('an invalid regex is a clear error', async () => {
    const result = await ws.call('search_text', { query: 'foo(', isRegex: true });
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /^invalid regular expression "foo\(":/);
  });

  it('caps the matches and says so', async () => {
    ws.write('many.txt', 'hit\n'.repeat(MAX_TEXT_MATCHES + 10));
    const result = await ws.call('search_text', { query: 'hit' });
    assert.strictEqual(result.truncated, true);
    const lines = result.output.split('\n');
    assert.strictEqual(lines.length, MAX_TEXT_MATCHES + 1);
    assert.strictEqual(lines[MAX_TEXT_MATCHES - 1], `many.txt:${MAX_TEXT_MATCHES}: hit`);
    assert.match(lines[MAX_TEXT_MATCHES], /more than 200 matches/);
  });

  describe('a pattern that backtracks exponentially', () => {
    // 17 s for 29 characters on the main thread before the matcher ran in a worker; the longer one would never end.
    for (const [name, text] of [
      ['slow.txt', `${'a'.repeat(29)}b\n`],
      ['slower.txt', `${'a'.repeat(5000)}b\n`],
    ]) {
      it(`is stopped at the time limit on ${name} with an error result, and the next search works`, async function () {
        this.timeout(20_000);
        ws.write(name, text);
        const started = Date.now();
        const result = await ws.call('search_text', { query: '(a+)+$', isRegex: true });
        assert.ok(Date.now() - started < 8000, `the search returned after ${Date.now() - started} ms`);
        assert.strictEqual(result.status, 'error');
        assert.match(result.output, new RegExp(`the pattern took longer than 2 s on ${name.replace('.', '\\.')}; simplify it`));
        assert.strictEqual((await ws.call('search_text', { query: 'fooX' })).output, 'src/b.js:2: fooXbar');
      });
    }

    it('is stopped when the turn is cancelled', async function () {
      this.timeout(20_000);
      ws.write('slow.txt', `${'a'.repeat(5000)}b\n`);
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 300);
      const result = await ws.call('search_text', { query: '(a+)+$', isRegex: true }, ws.ctx(undefined, controller.signal));
      assert.deepStrictEqual(result, { status: 'error', output: 'search_text failed: the search was cancelled' });
    });
  });

  it('finds matches in many files across batches, in walk order, like a line-by-line scan', async () => {
    const expected: string[] = [];
    for (let i = 0; i < 150; i++) {
      const name = `many/f${String(i).padStart(3, '0')}.txt`;
      ws.write(name, i % 7 === 0 ? `x\nneedle ${i}\r\nneedle again\n` : 'nothing\n');
      if (i % 7 === 0) expected.push(`${name}:2: needle ${i}`, `${name}:3: needle again`);
    }
    assert.deepStrictEqual(await ws.call('search_text', { query: '^needle', isRegex: true }), { status: 'ok', output: expected.join('\n') });
  });
});
