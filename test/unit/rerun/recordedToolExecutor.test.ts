import * as assert from 'assert';
import type { ToolCall } from '../../../src/agent/model/modelPort';
import type { CallSlot, ToolExecutor } from '../../../src/agent/toolExecutor';
import { RecordedToolExecutor, type RecordedCall } from '../../../src/rerun/recordedToolExecutor';

const signal = new AbortController().signal;
const slot = (requestSeq: number, index: number): CallSlot => ({ turnId: 't1', requestSeq, index });
const call = (id: string, name: string, args: Record<string, unknown>): ToolCall => ({
  id,
  name,
  valid: true,
  arguments: args,
  rawArguments: JSON.stringify(args),
});
const recordedCall = (entryId: number, name: string, input: unknown, output: string | null): RecordedCall => ({
  entryId,
  toolCallId: `r${entryId}`,
  name,
  input,
  result: output === null ? null : { entryId: entryId + 1, status: 'ok', output, truncated: false },
});

/** The source turn: request 1 read notes.md and then list_dir "."; request 2 read a.txt (never finished); request 3 read b.txt. */
const recording = new Map<number, RecordedCall[]>([
  [1, [recordedCall(10, 'read_file', { path: 'notes.md', limit: 5 }, 'Build with esbuild.\n'), recordedCall(12, 'list_dir', { path: '.' }, 'notes.md\n')]],
  [2, [recordedCall(20, 'read_file', { path: 'a.txt' }, null)]],
  [3, [recordedCall(30, 'read_file', { path: 'b.txt' }, 'bee\n')]],
]);

/** Live tools that say which call they ran. */
function liveTools(): ToolExecutor & { ran: string[] } {
  const ran: string[] = [];
  return {
    ran,
    effectOf: () => 'read',
    answer: (c) => {
      ran.push(c.id);
      return Promise.resolve({ result: { status: 'ok', output: `ran ${c.name}` }, ran: true });
    },
  };
}

describe('the recorded tool executor (a continued re-run answers calls from the recording)', () => {
  it('answers a call identical to the recorded one at its step (name, arguments in any key order) with the recorded result, marked where it came from', async () => {
    const executor = new RecordedToolExecutor(recording, 'src');
    const first = await executor.answer(call('c1', 'read_file', { limit: 5, path: 'notes.md' }), slot(1, 0), signal);
    assert.deepStrictEqual(first, {
      result: { status: 'ok', output: 'Build with esbuild.\n', truncated: false },
      ran: false,
      meta: { replayedFrom: { sessionId: 'src', entryId: 11 } },
    });
    const second = await executor.answer(call('c2', 'list_dir', { path: '.' }), slot(1, 1), signal);
    assert.deepStrictEqual(second.meta, { replayedFrom: { sessionId: 'src', entryId: 13 } });
    assert.deepStrictEqual([executor.stopAfter(1, 2), executor.divergence], [null, null]);
    assert.deepStrictEqual([executor.fateOf(1, 0), executor.fateOf(1, 1)], ['replayed', 'replayed']);
  });

  it('a call the recording does not have at its step is the divergence: not run, the rest of its request neither, and the turn stops as diverged', async () => {
    const executor = new RecordedToolExecutor(recording, 'src');
    const other = await executor.answer(call('c1', 'read_file', { path: 'other.md' }), slot(1, 0), signal);
    assert.deepStrictEqual([other.ran, other.result.status, other.meta], [false, 'error', undefined]);
    assert.match(other.result.output, /^not run: this call differs from the one recorded at this step \(the recording called read_file with other arguments\)/);
    const next = await executor.answer(call('c2', 'list_dir', { path: '.' }), slot(1, 1), signal);
    assert.strictEqual(next.result.output, 'not run: the re-run stopped at an earlier call of this request', 'even the identical call after it');
    assert.strictEqual(executor.stopAfter(1, 2), 'diverged');
    assert.deepStrictEqual(executor.divergence, {
      requestSeq: 1,
      index: 0,
      call: { name: 'read_file', input: { path: 'other.md' } },
      recorded: { name: 'read_file', input: { path: 'notes.md', limit: 5 }, entryId: 10 },
    });
    assert.deepStrictEqual([executor.fateOf(1, 0), executor.fateOf(1, 1)], ['not_run', 'not_run']);
  });

  it('a step with no recorded call, a recorded call without a result, and a step that leaves a recorded call out all diverge', async () => {
    const none = new RecordedToolExecutor(recording, 'src');
    assert.match((await none.answer(call('c9', 'read_file', { path: 'x' }), slot(4, 0), signal)).result.output, /\(the recording made no call here\)/);
    assert.deepStrictEqual(none.divergence?.recorded, null);

    const unfinished = new RecordedToolExecutor(recording, 'src');
    const answer = await unfinished.answer(call('c1', 'read_file', { path: 'a.txt' }), slot(2, 0), signal);
    assert.match(answer.result.output, /\(the recording's read_file call here has no result\)/);

    const fewer = new RecordedToolExecutor(recording, 'src');
    await fewer.answer(call('c1', 'read_file', { path: 'notes.md', limit: 5 }), slot(1, 0), signal);
    assert.strictEqual(fewer.stopAfter(1, 1), 'diverged');
    assert.deepStrictEqual(fewer.divergence, { requestSeq: 1, index: 1, call: null, recorded: { name: 'list_dir', input: { path: '.' }, entryId: 12 } });
  });

  it('with live tools the first differing call and every later one run for real, identical ones too, and the turn goes on', async () => {
    const live = liveTools();
    const executor = new RecordedToolExecutor(recording, 'src', live);
    const replayed = await executor.answer(call('c1', 'read_file', { path: 'notes.md', limit: 5 }), slot(1, 0), signal);
    assert.strictEqual(replayed.ran, false);
    const differs = await executor.answer(call('c2', 'list_dir', { path: 'src' }), slot(1, 1), signal);
    assert.deepStrictEqual(differs, { result: { status: 'ok', output: 'ran list_dir' }, ran: true });
    const later = await executor.answer(call('c3', 'read_file', { path: 'b.txt' }), slot(3, 0), signal);
    assert.strictEqual(later.result.output, 'ran read_file', 'identical to the recorded call, yet run: the fork has done otherwise by then');
    assert.deepStrictEqual(live.ran, ['c2', 'c3']);
    assert.strictEqual(executor.stopAfter(1, 2), null);
    assert.strictEqual(executor.stopAfter(3, 1), null);
    assert.deepStrictEqual(executor.divergence?.index, 1);
    assert.deepStrictEqual([executor.fateOf(1, 0), executor.fateOf(1, 1), executor.fateOf(3, 0)], ['replayed', 'run', 'run']);
  });
});
