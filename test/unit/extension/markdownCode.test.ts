import * as assert from 'assert';
import { codeBlock, codeSpan } from '../../../src/extension/tools/markdownCode';

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

  it('makes code spans longer than the backtick runs inside, padded when the text touches a backtick', () => {
    assert.strictEqual(codeSpan('src/a.ts'), '`src/a.ts`');
    assert.strictEqual(codeSpan('a`b'), '``a`b``');
    assert.strictEqual(codeSpan('`x``'), '``` `x`` ```');
    assert.strictEqual(codeSpan('[link](http://x) *y*'), '`[link](http://x) *y*`');
  });

  it('keeps a code span on one line', () => {
    assert.strictEqual(codeSpan('echo a\nrm -rf b'), '`echo a rm -rf b`');
  });
});
