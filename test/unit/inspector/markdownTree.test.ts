import * as assert from 'assert';
import fc from 'fast-check';
import { openableUrl } from '../../../src/protocol/openableLink';
import { MARKDOWN_TAGS, imageText, markdownTree, type MdNode } from '../../../webview/inspector/markdownTree';

/** The tree as text, element by element, the way a reader of a test failure would want it. */
function shape(nodes: readonly MdNode[]): unknown[] {
  return nodes.map((n) => {
    if (typeof n === 'string') return n;
    switch (n.tag) {
      case 'image':
        return { image: n.alt, src: n.src };
      case 'pre':
        return { pre: n.code, lang: n.lang };
      case 'a':
        return { a: shape(n.children), href: n.href };
      default:
        return { [n.tag]: shape(n.children), ...(n.start === undefined ? {} : { start: n.start }), ...(n.align === undefined ? {} : { align: n.align }) };
    }
  });
}

/** Every node of a tree, depth first. */
function* nodes(tree: readonly MdNode[]): Generator<MdNode> {
  for (const n of tree) {
    yield n;
    if (typeof n !== 'string' && 'children' in n) yield* nodes(n.children);
  }
}

const text = (tree: readonly MdNode[]): string =>
  [...nodes(tree)].map((n) => (typeof n === 'string' ? n : n.tag === 'pre' ? n.code : n.tag === 'image' ? imageText(n) : '')).join('');

describe('Markdown of tape text as an allow-listed tree (webview/inspector/markdownTree.ts)', () => {
  it('emphasis, strong, code, strike-through, a tight list and a heading become their elements', () => {
    assert.deepStrictEqual(shape(markdownTree('# Done\n\nSome *em*, **strong**, `npm test` and ~~old~~.\n\n- one\n- two')), [
      { h1: ['Done'] },
      { p: ['Some ', { em: ['em'] }, ', ', { strong: ['strong'] }, ', ', { code: ['npm test'] }, ' and ', { del: ['old'] }, '.'] },
      { ul: [{ li: ['one'] }, { li: ['two'] }] },
    ]);
  });

  it('an ordered list keeps its first number; a loose list keeps its paragraphs; quotes, rules and line breaks', () => {
    assert.deepStrictEqual(shape(markdownTree('3. a\n\n4. b\n\n> quoted  \nnext\n\n---')), [
      { ol: [{ li: [{ p: ['a'] }] }, { li: [{ p: ['b'] }] }], start: 3 },
      { blockquote: [{ p: ['quoted', { br: [] }, 'next'] }] },
      { hr: [] },
    ]);
  });

  it('a table with its alignments', () => {
    assert.deepStrictEqual(shape(markdownTree('| a | b |\n|:-:|--:|\n| 1 | 2 |')), [
      {
        table: [
          {
            thead: [
              {
                tr: [
                  { th: ['a'], align: 'center' },
                  { th: ['b'], align: 'right' },
                ],
              },
            ],
          },
          {
            tbody: [
              {
                tr: [
                  { td: ['1'], align: 'center' },
                  { td: ['2'], align: 'right' },
                ],
              },
            ],
          },
        ],
      },
    ]);
  });

  it('a fenced block is its language word and its exact text, markup in it included', () => {
    const code = 'const a = "<script>x</script>";\n  **not bold**';
    assert.deepStrictEqual(shape(markdownTree(`\`\`\`ts title="x"\n${code}\n\`\`\`\n\n    indented`)), [
      { pre: code, lang: 'ts' },
      { pre: 'indented', lang: '' },
    ]);
  });

  it('raw HTML is text: tags, attributes, an HTML block and entities stay as written', () => {
    const hostile = '<script>alert(1)</script> <img src=x onerror="alert(1)"> <a href="javascript:alert(1)">x</a>';
    assert.deepStrictEqual(shape(markdownTree(hostile)), [{ p: [hostile] }]);
    assert.deepStrictEqual(shape(markdownTree('<div onclick="alert(1)">\n<b>block</b>\n</div>')), [{ p: ['<div onclick="alert(1)">\n<b>block</b>\n</div>'] }]);
    assert.deepStrictEqual(shape(markdownTree('&lt;b&gt; &amp; \\*')), [{ p: ['<b> & *'] }]);
  });

  it('an image is never an element: its alt text and address as text', () => {
    const tree = markdownTree('See ![the *logo*](https://evil.example/x.png "t") and ![](data:image/png;base64,AAAA).');
    assert.deepStrictEqual(shape(tree), [
      { p: ['See ', { image: 'the logo', src: 'https://evil.example/x.png' }, ' and ', { image: '', src: 'data:image/png;base64,AAAA' }, '.'] },
    ]);
    assert.strictEqual(text(tree), 'See [image: the logo] (https://evil.example/x.png) and [image] (data:image/png;base64,AAAA).');
  });

  it('links only to http, https and mailto; any other address is text that says where it leads', () => {
    assert.deepStrictEqual(shape(markdownTree('[docs](<https://Example.com/a b>) <mailto:me@example.com> https://example.com/x.')), [
      {
        p: [
          { a: ['docs'], href: 'https://example.com/a%20b' },
          ' ',
          { a: ['mailto:me@example.com'], href: 'mailto:me@example.com' },
          ' ',
          { a: ['https://example.com/x'], href: 'https://example.com/x' },
          '.',
        ],
      },
    ]);
    assert.deepStrictEqual(shape(markdownTree('[run](command:workbench.action.terminal.new) [ext](vscode:extension/x) [rel](src/a.ts)')), [
      { p: ['run (command:workbench.action.terminal.new) ext (vscode:extension/x) rel (src/a.ts)'] },
    ]);
    // markdown-it refuses these outright: they stay as written.
    assert.deepStrictEqual(shape(markdownTree('[x](javascript:alert(1)) [f](file:///etc/passwd) <data:text/html,<b>x</b>> <javascript:alert(1)>')), [
      { p: ['[x](javascript:alert(1)) [f](file:///etc/passwd) <data:text/html,<b>x</b>> <javascript:alert(1)>'] },
    ]);
    assert.deepStrictEqual(shape(markdownTree('[**bold** link](HTTPS://EXAMPLE.COM)')), [
      { p: [{ a: [{ strong: ['bold'] }, ' link'], href: 'https://example.com/' }] },
    ]);
  });

  it('no fuzzy links: file names and user@host stay text', () => {
    assert.deepStrictEqual(shape(markdownTree('Edit main.rs and setup.py; push to git@github.com or www.example.com')), [
      { p: ['Edit main.rs and setup.py; push to git@github.com or www.example.com'] },
    ]);
  });

  it('on any text: only allow-listed elements, and links only to openable addresses', () => {
    const allowed = new Set<string>([...MARKDOWN_TAGS, 'image']);
    const piece = fc.constantFrom(
      '*',
      '**',
      '_',
      '`',
      '```',
      '~~',
      '#',
      '> ',
      '- ',
      '1. ',
      '|',
      '---',
      '\n',
      '\n\n',
      '  ',
      '[',
      '](',
      ')',
      '![',
      '<',
      '>',
      '"',
      '=',
      '&amp;',
      'script',
      'img src=x onerror=alert(1)',
      'javascript:alert(1)',
      'data:text/html,x',
      'https://example.com/p',
      'mailto:a@b.c',
      'command:x',
      'word',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const source = pieces.join('');
        const tree = markdownTree(source);
        for (const n of nodes(tree)) {
          if (typeof n === 'string') continue;
          assert.ok(allowed.has(n.tag), `${n.tag} from ${JSON.stringify(source)}`);
          if (n.tag === 'a') assert.strictEqual(openableUrl(n.href), n.href);
        }
      }),
      { numRuns: 500 },
    );
  });
});
