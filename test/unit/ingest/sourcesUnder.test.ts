import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sourcesIn } from '../../../src/ingest/sourcesUnder';
import { CC_SESSION, CODEX_SESSION, writeClaudeCode, writeCodex } from './fixtures';
import { jsonl, jsonlRecords } from './geminiFixtures';

describe('a folder walk for agents’ sessions', function () {
  this.timeout(20_000);
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-walk-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('tells a renamed Gemini log by its first bytes and leaves other *.jsonl to their reader, in a stable order', () => {
    const claude = writeClaudeCode(dir);
    const codex = writeCodex(dir);
    const log = path.join(dir, 'gemini.jsonl');
    fs.writeFileSync(log, jsonl(jsonlRecords()));
    fs.writeFileSync(path.join(dir, 'settings.json'), '{"theme":"dark"}');
    const walk = sourcesIn(dir);
    assert.deepStrictEqual(walk.sources, [
      { source: codex, format: null },
      { source: claude, format: null },
      { source: log, format: 'gemini' },
    ]);
    // The subagent file goes with its session (its folder is not walked), not as a file of its own.
    assert.strictEqual(walk.files, 4);
    assert.deepStrictEqual(walk.left, []);
    assert.ok(!walk.sources.some((s) => s.source.includes(`${CC_SESSION}${path.sep}`)));
  });

  it('goes 16 levels deep and no further, follows no symbolic link, passes over what is not a regular file, and says what it left', () => {
    const at = (depth: number): string => path.join(dir, ...Array.from({ length: depth }, (_, i) => `d${i}`));
    fs.mkdirSync(at(16), { recursive: true });
    const deepest = writeClaudeCode(at(16));
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-walk-outside-'));
    try {
      writeCodex(outside);
      fs.mkdirSync(path.join(at(16), 'd16', 'd17'), { recursive: true });
      writeCodex(path.join(at(16), 'd16', 'd17'));
      fs.symlinkSync(outside, path.join(dir, 'linked'));
      fs.symlinkSync(path.join(outside, '2026', '01', '02', `rollout-2026-01-02T03-04-00-${CODEX_SESSION}.jsonl`), path.join(dir, 'rollout.jsonl'));
      execFileSync('mkfifo', [path.join(dir, 'session-2026-08-01T10-00-a1b2c3d4.jsonl')]);
      const walk = sourcesIn(dir);
      assert.deepStrictEqual(
        walk.sources.map((s) => s.source),
        [deepest],
      );
      // d17, and the session's own folder of subagents (its transcript reads them all the same).
      assert.deepStrictEqual(walk.left, ['2 folders deeper than 16 levels not looked into', '2 symbolic links not followed']);
    } finally {
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });
});
