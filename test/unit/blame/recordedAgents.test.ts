import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeBlame, type BlameRange } from '../../../src/blame/tapeBlame';
import { ingestFile } from '../../../src/ingest/ingest';
import { TapeStore } from '../../../src/store/tapeStore';
import { SESSION_META } from '../../../src/tape/entryNames';

/**
 * Blame of the files real agents left, from the sessions they recorded themselves
 * (scripts/record-agents/claude-code-blame.mjs, codex-blame.mjs): each fixture holds the sessions
 * and the project's files as the agent left them (`workspace/`), which the test blames in a copy.
 */
const FIXTURES = path.join(__dirname, '../../../../test/fixtures/agents');
const CLAUDE = path.join(FIXTURES, 'claude-code-2.1.332-blame');
const CLAUDE_SESSION = path.join(CLAUDE, 'projects/-tmp-rec-claude-code-ebLqX6-proj/83373f9d-88b8-4831-b6cd-72896bf1201e.jsonl');
const CODEX = path.join(FIXTURES, 'codex-0.169.1-blame');
const CODEX_ROLLOUT = path.join(CODEX, 'sessions/2026/12/06/rollout-2026-12-06T19-21-49-01a24cce-28fa-7c90-8804-46ee2905ac49.jsonl');

/** A range as the test states it: its lines and, for an agent's lines, the entry, turn and prompt. */
type Expected = [startLine: number, endLine: number, origin: null | [entryId: number, turn: number, prompt: string]];

describe('blame of what real agents wrote, from the sessions they recorded', function () {
  this.timeout(60_000);
  let dir: string;
  let ws: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'recorded-blame-')));
    ws = path.join(dir, 'checkout');
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The fixture's session on the tape and its workspace copied to `ws`; the session's id. */
  async function ingest(fixture: string, session: string, format: 'claude-code' | 'codex'): Promise<string> {
    fs.cpSync(path.join(fixture, 'workspace'), ws, { recursive: true });
    const report = await ingestFile(store, session, format);
    assert.strictEqual(report.sessions.length, 1);
    return report.sessions[0];
  }

  /** The entry ids of the session's calls of `tool`, in order. */
  const callsOf = (sessionId: string, tool: string): number[] => store.entries(sessionId, { kind: 'tool_call', name: tool }).map((e) => e.entryId);

  /** The blame of the workspace file, every origin of `sessionId`, as the test states it. */
  async function blameOf(sessionId: string, file: string): Promise<Expected[]> {
    const ranges: BlameRange[] = await new TapeBlame(store, { workspaceRoot: ws }).blame(file, fs.readFileSync(path.join(ws, file), 'utf8'));
    return ranges.map(({ startLine, endLine, origin }) => {
      if (origin === null) return [startLine, endLine, null];
      assert.strictEqual(origin.sessionId, sessionId);
      return [startLine, endLine, [origin.entryId, origin.turn ?? 0, origin.prompt ?? '']];
    });
  }

  /** A person's change of one line of the copy. */
  function change(file: string, from: string, to: string): void {
    const text = fs.readFileSync(path.join(ws, file), 'utf8');
    assert.strictEqual(text.split(from).length, 2, `${from} once in ${file}`);
    fs.writeFileSync(path.join(ws, file), text.replace(from, to));
  }

  it('Claude Code 2.1.332: a Write, an Edit of three whole lines into five and an Edit inside a line, over two turns', async () => {
    const s = await ingest(CLAUDE, CLAUDE_SESSION, 'claude-code');
    const [write] = callsOf(s, 'Write');
    const [division, precision] = callsOf(s, 'Edit');
    assert.ok(write !== undefined && division !== undefined && precision !== undefined);
    // Claude Code writes absolute paths, those of the folder it ran in, not of this checkout.
    const written = (store.entries(s, { kind: 'tool_call', name: 'Write' })[0].payload as { input: { file_path: string } }).input.file_path;
    assert.ok(written.startsWith('/tmp/rec-claude-code-') && !written.startsWith(ws), written);
    const first = 'TAPE-BLAME-1: add src/new.js and make the division error clearer.';
    const second = 'TAPE-BLAME-2: round to 4 digits.';

    assert.deepStrictEqual(await blameOf(s, 'src/new.js'), [[1, 12, [write, 1, first]]]);
    assert.deepStrictEqual(await blameOf(s, 'src/calc.js'), [
      [1, 3, null],
      // `PRECISION = 2` -> `PRECISION = 4`: the line holds no other change.
      [4, 4, [precision, 2, second]],
      // The Edit's first and last lines repeat its old text: not the agent's.
      [5, 20, null],
      [21, 23, [division, 1, first]],
      [24, 43, null],
    ]);

    change('src/new.js', '  return multiply(x, x);', '  return x * x;');
    assert.deepStrictEqual(await blameOf(s, 'src/new.js'), [
      [1, 4, [write, 1, first]],
      [5, 5, null],
      [6, 12, [write, 1, first]],
    ]);
  });

  it('Codex 0.169.1: an apply_patch adding a file and changing two places of another, then one more hunk, blamed in another checkout', async () => {
    const s = await ingest(CODEX, CODEX_ROLLOUT, 'codex');
    const [meta] = store.entries(s, { kind: 'event', name: SESSION_META });
    const cwd = (meta.payload as { data: { cwd: string } }).data.cwd;
    assert.ok(cwd.startsWith('/tmp/rec-codex-') && cwd !== ws, `recorded in ${cwd}, blamed in ${ws}`);
    const [patch1, patch2] = callsOf(s, 'apply_patch');
    assert.ok(patch1 !== undefined && patch2 !== undefined);
    const first = 'TAPE-BLAME-1: add src/stats.js and simplify add and average.';
    const second = 'TAPE-BLAME-2: make mean of nothing 0.';

    assert.deepStrictEqual(await blameOf(s, 'src/calc.js'), [
      [1, 6, null],
      [7, 7, [patch1, 1, first]],
      [8, 30, null],
      [31, 32, [patch1, 1, first]],
      [33, 39, null],
    ]);
    assert.deepStrictEqual(await blameOf(s, 'src/stats.js'), [
      [1, 4, [patch1, 1, first]],
      [5, 5, [patch2, 2, second]],
      [6, 9, [patch1, 1, first]],
    ]);

    change('src/calc.js', '  return a + b;', '  return b + a;');
    assert.deepStrictEqual(await blameOf(s, 'src/calc.js'), [
      [1, 30, null],
      [31, 32, [patch1, 1, first]],
      [33, 39, null],
    ]);
  });
});
