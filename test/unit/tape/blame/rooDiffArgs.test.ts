import * as assert from 'assert';
import { editsOfRooDiffArgs } from '../../../../src/tape/blame/rooDiffArgs';

const block = (from: string, to: string) => `<<<<<<< SEARCH\n:start_line:1\n-------\n${from}\n=======\n${to}\n>>>>>>> REPLACE`;
const replace = (oldText: string, newText: string) => ({ kind: 'replace', oldText, newText, all: false });

describe("Roo Code's multi-file apply_diff args", () => {
  it('reads each file with its diffs in order, a CDATA content too', () => {
    const args = [
      '<file><path>src/a.ts</path>',
      `<diff><content>\n${block('a', 'b')}\n</content><start_line>1</start_line></diff>`,
      `<diff><content><![CDATA[${block('c', 'd')}]]></content></diff>`,
      '</file>',
      `<file>\n  <path> b.ts </path><diff><content>${block('e', 'f')}</content></diff></file>`,
    ].join('\n');
    assert.deepStrictEqual(editsOfRooDiffArgs(args), [
      { path: 'src/a.ts', changes: [replace('a\n', 'b\n'), replace('c\n', 'd\n')] },
      { path: 'b.ts', changes: [replace('e\n', 'f\n')] },
    ]);
  });

  for (const [what, args] of [
    ['a file without its path', `<file><diff><content>${block('a', 'b')}</content></diff></file>`],
    ['a file without a diff', '<file><path>a</path></file>'],
    ['a diff that is not blocks', '<file><path>a</path><diff><content>just text</content></diff></file>'],
    ['an open block', '<file><path>a</path><diff><content><<<<<<< SEARCH\na\n=======\nb</content></diff></file>'],
  ]) {
    it(`reads nothing of args with ${what}`, () => {
      assert.deepStrictEqual(editsOfRooDiffArgs(args), []);
    });
  }

  it('reads unclosed tags in one pass (no search again from each of them)', () => {
    assert.deepStrictEqual(editsOfRooDiffArgs('<file><path>a</path><content>'.repeat(200_000)), []);
    assert.deepStrictEqual(editsOfRooDiffArgs(`<file><path>a</path>${'<content>'.repeat(200_000)}</file>`), []);
  });
});
