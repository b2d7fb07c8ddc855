import * as assert from 'assert';
import { editsOfPatchCommand } from '../../../../src/tape/blame/applyPatchCommand';

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch';
const EDIT = { path: 'a.txt', changes: [{ kind: 'replace', oldText: 'x\n', newText: 'y\n', all: false }] };

describe('apply_patch as a command', () => {
  it('reads the argv forms codex-rs applies itself', () => {
    assert.deepStrictEqual(editsOfPatchCommand(['apply_patch', PATCH]), [EDIT]);
    assert.deepStrictEqual(editsOfPatchCommand(['applypatch', PATCH]), [EDIT]);
    assert.deepStrictEqual(editsOfPatchCommand(['bash', '-lc', `apply_patch <<'EOF'\n${PATCH}\nEOF\n`]), [EDIT]);
    assert.deepStrictEqual(editsOfPatchCommand(['/bin/sh', '-c', `apply_patch <<"PATCH"\n${PATCH}\nPATCH`]), [EDIT]);
  });

  it('reads an exec_command script, and puts the paths under the folder a `cd` names', () => {
    assert.deepStrictEqual(editsOfPatchCommand(`apply_patch <<EOF\n${PATCH}\nEOF`), [EDIT]);
    assert.deepStrictEqual(editsOfPatchCommand(`cd pkg/lib && apply_patch <<'EOF'\n${PATCH.replace('a.txt', 'a.txt\n*** Move to: /abs/b.txt')}\nEOF`), [
      { ...EDIT, path: 'pkg/lib/a.txt', movedTo: '/abs/b.txt' },
    ]);
  });

  it("puts relative paths under the call's workdir, and a `cd` under it", () => {
    assert.deepStrictEqual(editsOfPatchCommand(['apply_patch', PATCH], '/w'), [{ ...EDIT, path: '/w/a.txt' }]);
    assert.deepStrictEqual(editsOfPatchCommand(`cd sub && apply_patch <<'EOF'\n${PATCH}\nEOF`, '/w/'), [{ ...EDIT, path: '/w/sub/a.txt' }]);
    assert.deepStrictEqual(editsOfPatchCommand(`cd /abs && apply_patch <<'EOF'\n${PATCH}\nEOF`, '/w'), [{ ...EDIT, path: '/abs/a.txt' }]);
  });

  it('reads no other command', () => {
    for (const command of [
      ['cat', PATCH],
      ['apply_patch'],
      ['bash', '-lc', 'apply_patch <<EOF\nnot a patch\nEOF'],
      ['bash', '-lc', `echo hi; apply_patch <<'EOF'\n${PATCH}\nEOF`],
      ['bash', '-lc', `apply_patch <<'EOF'\n${PATCH}\nEOF\nrm -rf x`],
      ['python', '-c', `apply_patch <<'EOF'\n${PATCH}\nEOF`],
      'git status',
      `apply_patch <<'EOF'\n${PATCH}`,
    ])
      assert.deepStrictEqual(editsOfPatchCommand(command), [], JSON.stringify(command));
  });
});
