import * as assert from 'assert';
import { EntryQuery } from '../../../src/inspector/entryQuery';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import { message, toolCall, toolResult } from './helpers';

/** 1 session/start, then per i in 0..49: a user message, an assistant message, a read_file call and its result (entries 2..201). */
async function pagedStore(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  const entries: NewEntry[] = [];
  for (let i = 0; i < 50; i++) {
    entries.push(message(`u${i}`, 'user', 2 * i + 1, `question ${i}`), message(`a${i}`, 'assistant', 2 * i + 2, `answer ${i}`));
    entries.push(toolCall(`a${i}`, `c${i}`, 'read_file', { path: `f${i}` }), toolResult(`a${i}`, `c${i}`, 'read_file', 'ok', `contents ${i}`));
  }
  await store.appendMany('s', entries);
  return store;
}

/** Counts the store's fold-row reads, to show what the id cache saves. */
function countFoldRows(store: TapeStore): { calls: number[] } {
  const seen = { calls: [] as number[] };
  const original = store.foldRows.bind(store);
  store.foldRows = (sessionId: string, after: number) => {
    seen.calls.push(after);
    return original(sessionId, after);
  };
  return seen;
}

describe('inspector entry query', () => {
  it('pages the whole session without a filter', async () => {
    const store = await pagedStore();
    const q = new EntryQuery(store);
    const first = q.page('s', {}, 0, 3);
    assert.strictEqual(first.total, 201);
    assert.deepStrictEqual(
      first.rows.map((r) => [r.entryId, r.name, r.summary]),
      [
        [1, 'session/start', '{"sessionId":"s"}'],
        [2, 'message/user', 'question 0'],
        [3, 'message/assistant', 'answer 0'],
      ],
    );
    assert.deepStrictEqual(
      q.page('s', {}, 199, 10).rows.map((r) => r.entryId),
      [200, 201],
    );
    assert.deepStrictEqual(q.page('s', {}, 500, 10), { total: 201, rows: [] });
    assert.deepStrictEqual(q.page('nope', {}, 0, 10), { total: 0, rows: [] });
  });

  it('filters by kind and by name prefix, in entry order', async () => {
    const store = await pagedStore();
    const q = new EntryQuery(store);
    const calls = q.page('s', { kinds: ['tool_call'] }, 10, 2);
    assert.strictEqual(calls.total, 50);
    // The call of turn i is entry 4 + 4i.
    assert.deepStrictEqual(
      calls.rows.map((r) => [r.entryId, r.summary]),
      [
        [44, 'read_file {"path":"f10"}'],
        [48, 'read_file {"path":"f11"}'],
      ],
    );
    const both = q.page('s', { kinds: ['tool_call', 'tool_result'] }, 0, 3);
    assert.strictEqual(both.total, 100);
    assert.deepStrictEqual(
      both.rows.map((r) => r.entryId),
      [4, 5, 8],
    );
    const users = q.page('s', { name: 'message/u' }, 49, 5);
    assert.strictEqual(users.total, 50);
    assert.deepStrictEqual(
      users.rows.map((r) => [r.entryId, r.summary]),
      [[198, 'question 49']],
    );
    assert.strictEqual(q.page('s', { kinds: ['anchor'], name: 'message/' }, 0, 5).total, 0);
  });

  it('keeps the matching ids: scrolling reads no rows, growth reads only the new ones', async () => {
    const store = await pagedStore();
    const q = new EntryQuery(store);
    const reads = countFoldRows(store);
    q.page('s', { kinds: ['tool_result'] }, 0, 10);
    q.page('s', { kinds: ['tool_result'] }, 10, 10);
    q.page('s', { kinds: ['tool_result'] }, 40, 10);
    assert.deepStrictEqual(reads.calls, [0]);
    await store.appendMany('s', [toolCall('z', 'cz', 'grep', {}), toolResult('z', 'cz', 'grep', 'error', 'bad pattern')]);
    const grown = q.page('s', { kinds: ['tool_result'] }, 49, 10);
    assert.deepStrictEqual(reads.calls, [0, 201]);
    assert.strictEqual(grown.total, 51);
    assert.deepStrictEqual(
      grown.rows.map((r) => [r.entryId, r.summary]),
      [
        [201, 'ok: contents 49'],
        [203, 'error: bad pattern'],
      ],
    );
  });

  it('a text filter ranks best first, CJK included, and combines with kind and name', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('m1', 'user', 1, `今天 ${'其他的内容 '.repeat(30)} 数据库连接失败`),
      message('m2', 'assistant', 2, '数据库连接失败。数据库连接失败，请检查数据库连接失败的原因。'),
      toolCall('m2', 'c1', 'search_text', { query: '数据库连接失败' }),
      message('m3', 'user', 3, 'nothing to see here'),
    ]);
    const q = new EntryQuery(store);
    const hits = q.page('s', { text: '连接失败' }, 0, 10);
    assert.strictEqual(hits.total, 3);
    // m2 says it three times in a short text, the call once in a short one, m1 once in a long one.
    assert.deepStrictEqual(
      hits.rows.map((r) => r.entryId),
      [3, 4, 2],
    );
    assert.deepStrictEqual(
      q.page('s', { text: '连接失败', kinds: ['message'] }, 0, 10).rows.map((r) => r.entryId),
      [3, 2],
    );
    assert.deepStrictEqual(
      q.page('s', { text: '连接失败', name: 'message/u' }, 0, 10).rows.map((r) => r.entryId),
      [2],
    );
    assert.deepStrictEqual(
      q.page('s', { text: '连接失败' }, 1, 1).rows.map((r) => r.entryId),
      [4],
    );
    assert.strictEqual(q.page('s', { text: '   ' }, 0, 10).total, 5);
  });
});
