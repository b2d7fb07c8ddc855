import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { readAgentsMd } from '../../../../src/agent/context/agentsMd';

const posix = process.platform !== 'win32';

describe('AGENTS.md', () => {
  let root: string;
  beforeEach(() => (root = fs.mkdtempSync(path.join(os.tmpdir(), 'agents-md-'))));
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const file = () => path.join(root, 'AGENTS.md');

  it('is read whole, and is null when there is none', async () => {
    assert.strictEqual(await readAgentsMd(root), null);
    fs.writeFileSync(file(), '# Rules\nuse tabs\n');
    assert.strictEqual(await readAgentsMd(root), '# Rules\nuse tabs\n');
  });

  (posix ? it : it.skip)('a FIFO is refused at once, naming the file', async function () {
    this.timeout(10_000);
    execFileSync('mkfifo', [file()]);
    await assert.rejects(readAgentsMd(root), { message: `${file()}: is a FIFO (named pipe), not a regular file; refusing to read it` });
  });

  (posix ? it : it.skip)('a link to /dev/zero is refused, not read for ever', async function () {
    this.timeout(10_000);
    fs.symlinkSync('/dev/zero', file());
    await assert.rejects(readAgentsMd(root), /AGENTS\.md: is a character device, not a regular file/);
  });

  it('one over 512 KiB is refused with its size', async () => {
    fs.writeFileSync(file(), 'x'.repeat(600 * 1024));
    await assert.rejects(readAgentsMd(root), /AGENTS\.md: is 0\.6 MiB, over the 0\.5 MiB limit for AGENTS\.md/);
  });
});
