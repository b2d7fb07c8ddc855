import * as assert from 'assert';
import { ProjectionsReader } from '../../../src/inspector/projectionsView';
import { projectionsView } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { event, fixtureStore, message, toolCall, toolResult } from './helpers';

describe('inspector projections view', () => {
  it("title, todos, tool stats, token usage and pressure against the last request's window", async () => {
    const store = await fixtureStore();
    const view = new ProjectionsReader(store).view('inspector-sample');
    projectionsView.parse(view);
    assert.strictEqual(view.title, 'Read notes.md and tell me what it says <script>alert(1)</script>');
    assert.deepStrictEqual(view.todos, []);
    assert.deepStrictEqual(view.toolStats, [
      { name: 'list_dir', calls: 1, ok: 1, error: 0, pending: 0 },
      { name: 'read_file', calls: 1, ok: 1, error: 0, pending: 0 },
      { name: 'tape_handoff', calls: 1, ok: 1, error: 0, pending: 0 },
    ]);
    assert.deepStrictEqual(view.tokenUsage, { attempts: 2, inputTokens: 1600, outputTokens: 80, cachedTokens: 512 });
    assert.strictEqual(view.contextPressure.contextWindow, 32000);
    assert.strictEqual(view.contextPressure.windowSource, 'manifest');
    assert.strictEqual(view.contextPressure.ratio, view.contextPressure.estimatedTokens / 32000);
    assert.ok(view.contextPressure.estimatedTokens > 0);
  });

  it('todos of the last todo_write call; the default window without a request', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('m1', 'assistant', 1, 'planning'),
      toolCall('m1', 'c1', 'todo_write', {
        todos: [
          { id: 1, content: 'write tests', status: 'in_progress' },
          { id: 2, content: 'ship', status: 'pending' },
        ],
      }),
      toolResult('m1', 'c1', 'todo_write', 'ok', 'saved'),
      event('session/title', { title: 'Planning' }),
    ]);
    const view = new ProjectionsReader(store).view('s');
    assert.strictEqual(view.title, 'Planning');
    assert.deepStrictEqual(view.todos, [
      { content: 'write tests', status: 'in_progress' },
      { content: 'ship', status: 'pending' },
    ]);
    assert.deepStrictEqual([view.contextPressure.contextWindow, view.contextPressure.windowSource, view.contextPressure.model], [128000, 'assumed', null]);
  });

  it("another agent's session: the known window of the model its last call names, else an assumed one that names the model", async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('cc', [
      message('m1', 'user', 1, 'hello'),
      event('provider/attempt', { messageId: 'a', model: 'gpt-4o', usage: { inputTokens: 5 } }),
      event('provider/attempt', { messageId: 'b', model: 'claude-opus-4-1-20250805', usage: { inputTokens: 5 } }),
    ]);
    await store.appendMany('other', [event('provider/attempt', { messageId: 'a', model: 'my-local-llm' })]);
    const reader = new ProjectionsReader(store);
    const cc = reader.view('cc').contextPressure;
    projectionsView.parse(reader.view('cc'));
    assert.deepStrictEqual([cc.contextWindow, cc.windowSource, cc.model], [200000, 'model', 'claude-opus-4-1-20250805']);
    assert.strictEqual(cc.ratio, cc.estimatedTokens / 200000);
    const other = reader.view('other').contextPressure;
    assert.deepStrictEqual([other.contextWindow, other.windowSource, other.model], [128000, 'assumed', 'my-local-llm']);
  });
});
