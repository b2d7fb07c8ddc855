import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkpointStoreOf, WorkspaceCheckpoints } from '../../../src/agent/checkpoints/workspaceCheckpoints';
import { TapeBlame, type BlameRange } from '../../../src/blame/tapeBlame';
import { ingestFile } from '../../../src/ingest/ingest';
import { TapeStore } from '../../../src/store/tapeStore';
import type { CheckpointReason } from '../../../src/tape/workspaceCheckpoint';
import { checkpointEntry } from '../../../src/tape/workspaceCheckpoint';
import { attempt, call, ingested, prompt } from './blameTape';

const FIXTURES = path.join(__dirname, '../../../../test/fixtures/agents');
const CLAUDE_SESSION = path.join(FIXTURES, 'claude-code-2.1.332/projects/-tmp-rec-claude-code-Xe9TDk-proj/0178c38d-62e2-4523-88a6-67671119ea0f.jsonl');
const CODEX_ROLLOUT = path.join(FIXTURES, 'codex-0.169.1/sessions/2026/12/06/rollout-2026-12-06T12-30-21-01a24b55-7711-7eb2-b21a-71728fbd7a1f.jsonl');

/** Each line's origin as `session#entry` (or null), for comparing with what the test wrote. */
const perLine = (ranges: readonly BlameRange[]): (string | null)[] =>
  ranges.flatMap((r) => Array.from({ length: r.endLine - r.startLine + 1 }, () => (r.origin === null ? null : `${r.origin.sessionId}#${r.origin.entryId}`)));

describe('TapeBlame: which entry of the tape last wrote each line', function () {
  this.timeout(60_000);
  let dir: string;
  let ws: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tape-blame-')));
    ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('covers every line with ranges in order, merging lines of one origin, with the turn, prompt, model and request of the edit', async () => {
    const s = { sessionId: 'claude-code:s1', turnId: 't' };
    await store.appendMany(s.sessionId, [
      ...ingested(s.sessionId, 'claude-code', '/tmp/elsewhere'),
      prompt(s, 'first prompt'),
      prompt(s, 'add the middle'),
      attempt(s.sessionId, 'claude-opus-5-5'),
      ...call(s, 'Write', { file_path: '/tmp/elsewhere/f.txt', content: 'top\nmiddle 1\nmiddle 2\nbottom\n' }),
    ]);
    const blame = new TapeBlame(store, { workspaceRoot: ws });
    assert.ok(blame.touches('f.txt'));
    assert.ok(!blame.touches('g.txt'));
    const ranges = await blame.blame('f.txt', 'mine\ntop\nmiddle 1\nmiddle 2\nbottom\n');
    assert.deepStrictEqual(
      ranges.map((r) => [r.startLine, r.endLine, r.origin?.entryId ?? null]),
      [
        [1, 1, null],
        [2, 5, 6],
      ],
    );
    const origin = ranges[1].origin;
    assert.deepStrictEqual(origin && { ...origin, at: typeof origin.at }, {
      sessionId: s.sessionId,
      entryId: 6,
      agent: 'claude-code',
      model: 'claude-opus-5-5',
      turn: 2,
      prompt: 'add the middle',
      at: 'string',
      sessionTitle: 'first prompt',
      requestEntryId: null,
    });
  });

  it('stops at an aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await assert.rejects(new TapeBlame(store, { workspaceRoot: ws }).blame('f.txt', 'x\n', controller.signal), { name: 'AbortError' });
  });

  it("blames our agent's turn through its checkpoints: its edit call, a command's change claimed by the turn, a person's change after it", async () => {
    const tapeFile = path.join(dir, 'w.tape.sqlite');
    const file = path.join(ws, 'a.txt');
    fs.writeFileSync(file, 'one\ntwo\nthree\n');
    const checkpoints = new WorkspaceCheckpoints(checkpointStoreOf(tapeFile), ws);
    const turn = { sessionId: 'own', turnId: 'turn-1' };
    const take = async (reason: CheckpointReason, diffFrom?: string): Promise<string> => {
      const taken = await checkpoints.take(turn.sessionId, reason, turn.turnId, diffFrom);
      assert.strictEqual(taken?.kind, 'checkpoint');
      await store.append(turn.sessionId, checkpointEntry(turn.sessionId, taken.data));
      return taken.data.checkpointId;
    };
    await store.append(turn.sessionId, prompt(turn, 'make two loud'));
    const start = await take('turn_start');
    // The call as apply_edit made it, then a command the turn ran appends a line.
    fs.writeFileSync(file, 'one\nTWO\nthree\n');
    await store.appendMany(turn.sessionId, call(turn, 'apply_edit', { path: 'a.txt', oldText: 'two', newText: 'TWO' }));
    fs.appendFileSync(file, 'four\n');
    await take('turn_end', start);
    const [callId, endId] = [store.entries('own', { kind: 'tool_call' })[0].entryId, store.headEntryId('own')];

    const blame = new TapeBlame(store, { workspaceRoot: ws, checkpointsDir: checkpointStoreOf(tapeFile) });
    const now = await blame.blame('a.txt', fs.readFileSync(file, 'utf8'));
    assert.deepStrictEqual(perLine(now), [null, `own#${callId}`, null, `own#${endId}`]);
    assert.strictEqual(now[1].origin?.prompt, 'make two loud');

    // A person rewrites the agent's line after the turn: it is theirs.
    assert.deepStrictEqual(perLine(await blame.blame('a.txt', 'one\nTwo\nthree\nfour\n')), [null, null, null, `own#${endId}`]);

    // Without the store the turn's checkpoints are skipped; the call still counts.
    const noStore = new TapeBlame(store, { workspaceRoot: ws, checkpointsDir: path.join(dir, 'missing.checkpoints') });
    assert.deepStrictEqual(perLine(await noStore.blame('a.txt', fs.readFileSync(file, 'utf8'))), [null, `own#${callId}`, null, null]);
  });

  it("places a real Claude Code 2.1.332 session's Edit on its line in another checkout, until a person edits it", async () => {
    await ingestFile(store, CLAUDE_SESSION, 'claude-code');
    const blame = new TapeBlame(store, { workspaceRoot: ws });
    assert.ok(blame.touches('a.txt'), "the session ran in /tmp/rec-claude-code-Xe9TDk/proj: its a.txt is this workspace's");
    const [range] = await blame.blame('a.txt', 'hello tape\n');
    assert.deepStrictEqual([range.startLine, range.endLine], [1, 1]);
    const edit = store.entries(range.origin?.sessionId ?? '', { kind: 'tool_call', name: 'Edit' });
    assert.strictEqual(edit.length, 1);
    assert.strictEqual(range.origin?.entryId, edit[0].entryId);
    assert.strictEqual(range.origin?.agent, 'claude-code');
    assert.strictEqual(range.origin?.model, 'claude-opus-5-5');
    assert.strictEqual(range.origin?.turn, 1);
    assert.strictEqual(range.origin?.prompt, 'TAPE-A: read a.txt, change hello world to hello tape, then list the files.');

    const after = await blame.blame('a.txt', 'added above\nhello tape\nhello tape, said the person\n');
    assert.deepStrictEqual(perLine(after), [null, `${range.origin?.sessionId}#${edit[0].entryId}`, null]);
    assert.deepStrictEqual(perLine(await blame.blame('a.txt', 'hello TAPE\n')), [null]);
  });

  it("places a real Codex 0.169.1 session's apply_patch on its line in another checkout, until a person edits it", async () => {
    await ingestFile(store, CODEX_ROLLOUT, 'codex');
    const blame = new TapeBlame(store, { workspaceRoot: ws });
    const [range] = await blame.blame('a.txt', 'hello world\n');
    const patch = store.entries(range.origin?.sessionId ?? '', { kind: 'tool_call', name: 'apply_patch' });
    assert.strictEqual(patch.length, 1);
    assert.deepStrictEqual([range.startLine, range.endLine, range.origin?.entryId], [1, 1, patch[0].entryId]);
    assert.strictEqual(range.origin?.agent, 'codex');
    assert.strictEqual(range.origin?.model, 'gpt-5.5');
    assert.strictEqual(range.origin?.prompt, 'Read a.txt, fix its typo, then check it.');
    assert.deepStrictEqual(perLine(await blame.blame('a.txt', 'hello world!\n')), [null]);
  });
});
