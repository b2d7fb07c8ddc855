import * as assert from 'assert';
import fc from 'fast-check';
import * as fs from 'fs';
import * as path from 'path';
import { codeBlock, codeCell, codeSpan, shownBlock } from '../../../src/extension/tools/markdownCode';

interface Token {
  type: string;
  content: string;
  children: Token[] | null;
}
// A CommonMark parser to check against; it comes with @vscode/vsce, one of the dev dependencies.
const MarkdownIt = require('markdown-it') as new (preset: 'commonmark' | 'default') => {
  parse(src: string, env: object): Token[];
  render(src: string): string;
};
const md = new MarkdownIt('commonmark');
// With GFM tables, as VS Code's chat renders them.
const gfm = new MarkdownIt('default');

const BREAKS = ['\n', '\r', '\r\n', '\u2028', '\u2029', '\u0085', '\u000b', '\u000c'];
// Bidirectional formatting characters: an override, an isolate and its end, a mark.
const BIDI = ['\u202e', '\u2066', '\u2069', '\u200f'];
const escapedBidi = (text: string): string =>
  text.replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** What a code span shows of `text`: each line break a space, bidi formatting escaped (the parser also makes NUL U+FFFD). */
const shown = (text: string): string =>
  escapedBidi(text)
    .replace(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g, ' ')
    .replace(/\0/g, '\uFFFD');

/** The blocks and inline tokens `markdown` parses to, as `type` or `type:content`. */
function parsed(markdown: string): string[] {
  return md.parse(markdown, {}).flatMap((t) => (t.type === 'inline' ? (t.children ?? []).map((c) => `${c.type}:${c.content}`) : [t.type]));
}

describe('markdownCode', () => {
  it('fences text in three backticks when it has none, ending the text with a newline', () => {
    assert.strictEqual(codeBlock('a <b>\n', 'diff'), '```diff\na <b>\n```');
    assert.strictEqual(codeBlock('x'), '```\nx\n```');
  });

  it('uses a fence longer than any backtick run in the text, so the text cannot close it', () => {
    const text = 'before\n````\n<script>alert(1)</script>\n```js\nafter';
    const block = codeBlock(text);
    assert.ok(block.startsWith('`````\n') && block.endsWith('\n`````'), block);
    assert.strictEqual(block.slice(6, -6), text);
  });

  it('a code block holds any text, whatever its line breaks, as one fence', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string(), fc.constantFrom(...BREAKS, ...BIDI, '```', '`', '~~~', '    ', '![x](http://e/)')), { maxLength: 12 }),
        (parts) => {
          const text = parts.join('');
          const blocks = md.parse(`intro\n\n${codeBlock(text)}\n\nafter`, {});
          assert.deepStrictEqual(
            blocks.map((t) => t.type),
            ['paragraph_open', 'inline', 'paragraph_close', 'fence', 'paragraph_open', 'inline', 'paragraph_close'],
          );
          const fence = blocks[3];
          assert.strictEqual(fence.content, `${escapedBidi(text).replace(/\r\n?/g, '\n').replace(/\0/g, '\uFFFD')}${/(\r\n|\r|\n)$/.test(text) ? '' : '\n'}`);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('writes bidirectional formatting characters as escapes, in blocks and spans', () => {
    const command = 'rm -rf ./build \u202e\u2066 /* keep */\u2069\u202c; echo ok';
    const escaped = 'rm -rf ./build \\u202e\\u2066 /* keep */\\u2069\\u202c; echo ok';
    assert.strictEqual(codeBlock(command, 'sh'), `\`\`\`sh\n${escaped}\n\`\`\``);
    assert.strictEqual(codeSpan(command), `\`${escaped}\``);
    assert.strictEqual(codeCell('a\u200f|b'), '`a\\u200f\\|b`');
  });

  it('shows at most the lines asked for, counting the rest', () => {
    assert.strictEqual(shownBlock('a\nb\nc', 'sh', 3), '```sh\na\nb\nc\n```');
    assert.strictEqual(shownBlock('a\nb\nc', 'sh', 2), '```sh\na\nb\n```\n\n*1 more lines not shown.*');
  });

  it('makes code spans longer than the backtick runs inside, padded when the text touches a backtick', () => {
    assert.strictEqual(codeSpan('src/a.ts'), '`src/a.ts`');
    assert.strictEqual(codeSpan('a`b'), '``a`b``');
    assert.strictEqual(codeSpan('`x``'), '``` `x`` ```');
    assert.strictEqual(codeSpan('[link](http://x) *y*'), '`[link](http://x) *y*`');
  });

  it('keeps a code span on one line, whatever breaks the line', () => {
    assert.strictEqual(codeSpan('echo a\nrm -rf b'), '`echo a rm -rf b`');
    assert.strictEqual(codeSpan('a\rb'), '`a b`');
    assert.strictEqual(codeSpan('a\u2028b\u2029c\u0085d'), '`a b c d`');
  });

  it('explicit cases parse as one code span holding the text', () => {
    for (const [text, span, content] of [
      ['a\rb', '`a b`', 'a b'],
      ['`', '`` ` ``', '`'],
      ['![x](http://e/)', '`![x](http://e/)`', '![x](http://e/)'],
      ['\r\n[link](x)', '`  [link](x) `', ' [link](x)'],
      ['\r\n# heading\n![i](http://e/i.png)', '`  # heading ![i](http://e/i.png) `', ' # heading ![i](http://e/i.png)'],
      ['', '` `', ' '],
      ['  ', '`  `', '  '],
      ['<img src=x onerror=alert(1)>', '`<img src=x onerror=alert(1)>`', '<img src=x onerror=alert(1)>'],
    ]) {
      assert.strictEqual(codeSpan(text), span, JSON.stringify(text));
      assert.deepStrictEqual(
        parsed(`Reading ${codeSpan(text)} now`),
        ['paragraph_open', 'text:Reading ', `code_inline:${content}`, 'text: now', 'paragraph_close'],
        JSON.stringify(text),
      );
    }
  });

  it('for any text, the span is one line and parses as one code span showing the text, alone on a line or within one', () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.string({ unit: 'binary' }),
      fc.constantFrom(
        ...BREAKS,
        ...BIDI,
        '`',
        '``',
        '```',
        ' ',
        '#',
        '- ',
        '1. ',
        '> ',
        '![x](http://e/)',
        '[l](x)',
        '<b>',
        '&amp;',
        '\\',
        '*',
        '_',
        '|',
        '\0',
      ),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (parts) => {
        const text = parts.join('');
        const span = codeSpan(text);
        assert.ok(!/[\n\r\u000b\u000c\u0085\u2028\u2029]/.test(span), 'no line break');
        const longestInside = Math.max(0, ...(shown(text).match(/`+/g) ?? []).map((r) => r.length));
        const fence = /^`+/.exec(span)![0].length;
        assert.ok(fence > longestInside, 'the fence is longer than any backtick run inside');
        assert.ok(span.endsWith('`'.repeat(fence)) && !span.endsWith('`'.repeat(fence + 1)), 'closed by a run as long as the opening one');
        // markdown-it strips one space each side of a span of 3+ spaces only, which CommonMark (and marked, VS Code's parser) keeps.
        if (/^ {3,}$/.test(shown(text))) return;
        const expected = `code_inline:${shown(text) === '' ? ' ' : shown(text)}`;
        assert.deepStrictEqual(parsed(`see ${span} here`), ['paragraph_open', 'text:see ', expected, 'text: here', 'paragraph_close']);
        assert.deepStrictEqual(parsed(span), ['paragraph_open', expected, 'paragraph_close']);
      }),
      { numRuns: 2000 },
    );
  });

  it('a code span in a table cell keeps a pipe in the text from ending the cell', () => {
    const row = (text: string) => gfm.render(`| kind | n |\n| --- | ---: |\n| ${codeCell(text)} | 3 |\n`);
    assert.match(row('a|![x](http://e/)'), /<td><code>a\|!\[x\]\(http:\/\/e\/\)<\/code><\/td>\n<td style="text-align:right">3<\/td>/);
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.string(), fc.constantFrom('|', '\\', '`', '![x](http://e/)')), { maxLength: 10 }), (parts) => {
        const cell = codeCell(parts.join(''));
        // marked (VS Code) escapes a pipe only after an odd number of backslashes, so check the count, not just markdown-it.
        for (const run of cell.match(/\\*\|/g) ?? []) assert.ok((run.length - 1) % 2 === 1, `${run} in ${cell}`);
        assert.strictEqual((row(parts.join('')).match(/<td/g) ?? []).length, 2, cell);
        assert.ok(!row(parts.join('')).includes('<img'), cell);
      }),
      { numRuns: 500 },
    );
  });

  it('no MarkdownString the extension builds is trusted (command links) or renders HTML, but the agent blame hover, which trusts only its own commands', () => {
    const root = path.resolve(__dirname, '../../../../src/extension');
    const files = fs.readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    assert.ok(files.length > 20, `${files.length} files under ${root}`);
    // Its links are its actions (blameActions.ts's BLAME_COMMANDS), the tape's text in code spans (blameHover.test.ts).
    const commandsOnly = path.join('blame', 'liveBlame.ts');
    for (const file of files) {
      const text = fs.readFileSync(path.join(root, file), 'utf8');
      if (file === commandsOnly) assert.match(text, /isTrusted = \{ enabledCommands: \[\.\.\.new Set\(actions\.map\(\(a\) => a\.command\)\)\] \}/);
      assert.doesNotMatch(
        text,
        file === commandsOnly ? /isTrusted\s*(=|:)\s*true|supportHtml\s*(=|:)\s*true/ : /isTrusted\s*(=|:)\s*(true|\{)|supportHtml\s*(=|:)\s*true/,
        file,
      );
    }
  });
});
