import * as assert from 'assert';
import { changesOfSearchReplace } from '../../../../src/tape/blame/searchReplaceBlocks';

describe('SEARCH/REPLACE blocks', () => {
  it("reads Cline's blocks, two in a diff, with the text around them ignored", () => {
    const diff = ['here:', '------- SEARCH', 'a', 'b', '=======', 'c', '+++++++ REPLACE', '', '------- SEARCH', 'd', '=======', '+++++++ REPLACE'].join('\n');
    assert.deepStrictEqual(changesOfSearchReplace(diff), [
      { kind: 'replace', oldText: 'a\nb\n', newText: 'c\n', all: false },
      { kind: 'replace', oldText: 'd\n', newText: '', all: false },
    ]);
  });

  it("reads the older markers and Roo's line numbers and separator, with CRLF line ends", () => {
    const diff = ['<<<<<<< SEARCH', ':start_line:12', ':end_line:13', '-------', 'x = 1', '=======', 'x = 2', '>>>>>>> REPLACE'].join('\r\n');
    assert.deepStrictEqual(changesOfSearchReplace(diff), [{ kind: 'replace', oldText: 'x = 1\n', newText: 'x = 2\n', all: false }]);
  });

  it("reads an empty SEARCH as Cline's whole-file write", () => {
    assert.deepStrictEqual(changesOfSearchReplace('------- SEARCH\n=======\nnew file\n+++++++ REPLACE'), [{ kind: 'write', content: 'new file\n' }]);
  });

  for (const [what, diff] of [
    ['a SEARCH block without REPLACE', '------- SEARCH\na\n=======\nb\n'],
    ['a SEARCH block without separator', '------- SEARCH\na\n+++++++ REPLACE\n'],
    ['no block', 'just some text'],
    ['nothing', ''],
  ]) {
    it(`reads nothing of a diff with ${what}`, () => {
      assert.strictEqual(changesOfSearchReplace(diff), null);
    });
  }
});
