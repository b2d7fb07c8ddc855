import * as assert from 'assert';
import { workspacePathOf } from '../../../src/blame/editPath';

describe("workspacePathOf: where an edit's path is in this workspace", () => {
  const ws = '/home/me/project';

  it('reads a path as our agent writes it (no cwd) relative to the workspace', () => {
    assert.strictEqual(workspacePathOf('src/a.ts', null, ws), 'src/a.ts');
    assert.strictEqual(workspacePathOf('./src/../b.ts', null, ws), 'b.ts');
    assert.strictEqual(workspacePathOf('/home/me/project/src/a.ts', null, ws), 'src/a.ts');
  });

  it('reads a session of another checkout through its cwd: relative and absolute paths inside it name the same file here', () => {
    const cwd = '/tmp/other-clone';
    assert.strictEqual(workspacePathOf('src/a.ts', cwd, ws), 'src/a.ts');
    assert.strictEqual(workspacePathOf('/tmp/other-clone/src/a.ts', cwd, ws), 'src/a.ts');
  });

  it('puts a session run in a folder of this workspace under that folder', () => {
    const cwd = '/home/me/project/packages/core';
    assert.strictEqual(workspacePathOf('index.ts', cwd, ws), 'packages/core/index.ts');
    assert.strictEqual(workspacePathOf('/home/me/project/packages/core/index.ts', cwd, ws), 'packages/core/index.ts');
    assert.strictEqual(workspacePathOf('../util/x.ts', cwd, ws), 'packages/util/x.ts');
  });

  it('takes an absolute path outside the cwd only when it is inside this workspace', () => {
    assert.strictEqual(workspacePathOf('/home/me/project/README.md', '/tmp/other-clone', ws), 'README.md');
    assert.strictEqual(workspacePathOf('/etc/passwd', '/tmp/other-clone', ws), null);
    assert.strictEqual(workspacePathOf('/etc/passwd', null, ws), null);
  });

  it('refuses what leaves the workspace, names it, or is no path', () => {
    assert.strictEqual(workspacePathOf('../outside.ts', null, ws), null);
    assert.strictEqual(workspacePathOf('../../x', '/tmp/other-clone', ws), null);
    assert.strictEqual(workspacePathOf('.', null, ws), null);
    assert.strictEqual(workspacePathOf('/home/me/project', null, ws), null);
    assert.strictEqual(workspacePathOf('', null, ws), null);
    assert.strictEqual(workspacePathOf('a\0b', null, ws), null);
  });
});
