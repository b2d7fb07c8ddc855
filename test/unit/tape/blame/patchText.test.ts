import * as assert from 'assert';
import { editsOfPatch } from '../../../../src/tape/blame/patchText';

describe('Codex patch text', () => {
  it('reads the patch Codex 0.169.1 sent in the recorded session', () => {
    assert.deepStrictEqual(editsOfPatch('*** Begin Patch\n*** Update File: a.txt\n@@\n-hello wrld\n+hello world\n*** End Patch\n'), [
      { path: 'a.txt', changes: [{ kind: 'replace', oldText: 'hello wrld\n', newText: 'hello world\n', all: false }] },
    ]);
  });

  it('reads several files: an add, a delete, an update moved elsewhere with hunks under headers and an end of file', () => {
    const patch = [
      '*** Begin Patch',
      '*** Add File: src/new.py',
      '+def g():',
      '+    return 1',
      '*** Delete File: old/gone.py',
      '*** Update File: src/app.py',
      '*** Move to: src/main.py',
      '@@ def f():',
      '     x = 1',
      '-    return x',
      '+    return x + 1',
      '@@ class C:',
      ' ',
      '-    pass',
      '+    y = 2',
      '*** End of File',
      '*** End Patch',
    ].join('\n');
    assert.deepStrictEqual(editsOfPatch(patch), [
      { path: 'src/new.py', changes: [{ kind: 'write', content: 'def g():\n    return 1\n' }] },
      { path: 'old/gone.py', changes: [{ kind: 'delete' }] },
      {
        path: 'src/app.py',
        movedTo: 'src/main.py',
        changes: [
          { kind: 'replace', oldText: '    x = 1\n    return x\n', newText: '    x = 1\n    return x + 1\n', all: false },
          { kind: 'replace', oldText: '\n    pass', newText: '\n    y = 2', all: false },
        ],
      },
    ]);
  });

  it('reads a first hunk without its @@, an empty line as empty context, spaces around the envelope and a heredoc', () => {
    const patch = "<<'EOF'\n  *** Begin Patch\n*** Update File: /abs/a.md\n a\n\n-b\n+c\n*** End Patch  \nEOF\n";
    assert.deepStrictEqual(editsOfPatch(patch), [{ path: '/abs/a.md', changes: [{ kind: 'replace', oldText: 'a\n\nb\n', newText: 'a\n\nc\n', all: false }] }]);
  });

  it('says a hunk of added lines only is written text, whose place codex-rs chooses (the end of the file)', () => {
    assert.deepStrictEqual(editsOfPatch('*** Begin Patch\n*** Update File: a\n@@ def f():\n+tail\n*** End Patch'), [
      { path: 'a', changes: [{ kind: 'written', newText: 'tail\n' }] },
    ]);
  });

  it('leaves the last line break out of an end-of-file hunk that keeps lines, and in one that removes every line', () => {
    const patch = (lines: string) => `*** Begin Patch\n*** Update File: a\n@@\n${lines}\n*** End of File\n*** End Patch`;
    assert.deepStrictEqual(editsOfPatch(patch(' x\n-y\n+z')), [{ path: 'a', changes: [{ kind: 'replace', oldText: 'x\ny', newText: 'x\nz', all: false }] }]);
    assert.deepStrictEqual(editsOfPatch(patch(' x\n-y')), [{ path: 'a', changes: [{ kind: 'replace', oldText: 'x\ny', newText: 'x', all: false }] }]);
    assert.deepStrictEqual(editsOfPatch(patch('-y')), [{ path: 'a', changes: [{ kind: 'replace', oldText: 'y\n', newText: '', all: false }] }]);
  });

  it('an empty added file is written empty', () => {
    assert.deepStrictEqual(editsOfPatch('*** Begin Patch\n*** Add File: e.txt\n*** End Patch'), [{ path: 'e.txt', changes: [{ kind: 'write', content: '' }] }]);
  });

  for (const [what, patch] of [
    ['no end', '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n'],
    ['no begin', '*** Update File: a\n@@\n-x\n+y\n*** End Patch'],
    ['an unknown header', '*** Begin Patch\n*** Rename File: a\n*** End Patch'],
    ['an update without hunks', '*** Begin Patch\n*** Update File: a\n*** End Patch'],
    ['a hunk without lines', '*** Begin Patch\n*** Update File: a\n@@\n@@\n-x\n*** End Patch'],
    ['a line of no kind in a hunk', '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n?z\n*** End Patch'],
    ['a second hunk without its @@', '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End of File\n-z\n*** End Patch'],
    ['an empty path', '*** Begin Patch\n*** Delete File:  \n*** End Patch'],
    ['an empty move', '*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n*** End Patch'],
    ['a bare end of file', '*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch'],
    ['text', 'hello'],
    ['nothing', ''],
  ]) {
    it(`refuses a patch with ${what}: nothing is read of it`, () => {
      assert.deepStrictEqual(editsOfPatch(patch), []);
    });
  }

  it('reads a large patch in one linear pass', () => {
    const lines = Array.from({ length: 50_000 }, (_, i) => `+line ${i}`);
    const [edit] = editsOfPatch(['*** Begin Patch', '*** Add File: big.txt', ...lines, '*** End Patch'].join('\n'));
    assert.strictEqual(edit.changes[0].kind === 'write' && edit.changes[0].content.split('\n').length, 50_001);
  });
});
