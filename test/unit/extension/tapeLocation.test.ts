import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { workspaceTapeDir } from '../../../src/extension/tapeLocation';

describe('the workspace tape folder', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-storage-'));
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const ext = (id: string) => path.join(root, 'workspaceStorage', id, 'agent-tape.agent-tape');

  it('is the storage folder of the first window on a workspace', () => {
    fs.mkdirSync(path.join(root, 'workspaceStorage', '512290f3'), { recursive: true });
    assert.strictEqual(workspaceTapeDir(ext('512290f3')), ext('512290f3'));
  });

  it("is the first window's too for a second window, which a VS Code server gives `<id>-1`", () => {
    assert.strictEqual(workspaceTapeDir(ext('512290f3-1')), ext('512290f3'));
    assert.strictEqual(workspaceTapeDir(ext('512290f3-12')), ext('512290f3'));
  });

  it("keeps a numbered folder whose first window's folder does not exist", () => {
    assert.strictEqual(workspaceTapeDir(ext('abc-1')), ext('abc-1'));
  });
});
