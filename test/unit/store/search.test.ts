import * as assert from 'assert';
import { TapeQueryError } from '../../../src/store/errors';
import { TapeStore } from '../../../src/store/tapeStore';
import { parseQuery } from '../../../src/tape/search/searchQuery';
import { message } from './helpers';

describe('full-text search (FTS4, BM25, CJK)', () => {
  let store: TapeStore;
  before(async () => {
    store = await TapeStore.inMemory();
    await store.append('s1', message('m1', 'The database connection failed after the upgrade.'));
    await store.append('s1', message('m2', '数据库连接失败，请检查配置文件。'));
    await store.append('s1', message('m3', 'データベースへの接続に失敗しました。設定を確認してください。'));
    await store.append('s1', {
      kind: 'tool_call',
      name: 'read_file',
      payload: { messageId: 'm2', toolCallId: 't1', name: 'read_file', input: { path: 'src/config.ts' } },
    });
    await store.append('s1', {
      kind: 'tool_result',
      name: 'read_file',
      payload: { messageId: 'm2', toolCallId: 't1', status: 'error', output: 'ENOENT: no such file src/config.ts' },
    });
    await store.append('s1', { kind: 'error', name: 'error/provider', payload: { kind: 'provider', message: 'rate limited by upstream' } });
    await store.append('s2', message('m4', 'database database database: a note about the database'));
    await store.append('s2', { kind: 'anchor', name: 'handoff/review', payload: { name: 'handoff/review', state: { summary: '用户希望重构配置加载' } } });
    await store.append('s2', { kind: 'event', name: 'turn/end', payload: { name: 'turn/end', data: { stopReason: 'length limit reached' } } });
  });
  after(() => store.close());

  it('finds Chinese words inside unspaced text', () => {
    const hits = store.search('连接失败');
    assert.deepStrictEqual(
      hits.map((h) => [h.sessionId, h.entryId]),
      [['s1', 3]],
    );
    assert.match(hits[0].snippet, /«连接失败»/);
    assert.deepStrictEqual(
      store
        .search('配置')
        .map((h) => [h.sessionId, h.entryId])
        .sort(),
      [
        ['s1', 3],
        ['s2', 3],
      ],
    );
    assert.deepStrictEqual(store.search('连失').length, 0, 'characters that are not adjacent do not match a phrase');
  });

  it('finds Japanese words, kana and kanji', () => {
    assert.deepStrictEqual(
      store.search('接続').map((h) => h.entryId),
      [4],
    );
    assert.deepStrictEqual(
      store.search('データベース').map((h) => h.entryId),
      [4],
    );
    assert.deepStrictEqual(
      store.search('確認').map((h) => h.entryId),
      [4],
    );
  });

  it('ranks by BM25, best first, with limit and filters', () => {
    const hits = store.search('database');
    assert.deepStrictEqual(
      hits.map((h) => h.sessionId),
      ['s2', 's1'],
      'more occurrences rank higher',
    );
    assert.ok(hits[0].score > hits[1].score && hits[1].score > 0);
    assert.strictEqual(store.search('database', { limit: 1 }).length, 1);
    assert.deepStrictEqual(
      store.search('database', { sessionId: 's1' }).map((h) => h.entryId),
      [2],
    );
    assert.deepStrictEqual(
      store.search('config', { kinds: ['tool_result'] }).map((h) => h.kind),
      ['tool_result'],
    );
    assert.strictEqual(store.search('database', { fromTime: Date.now() + 60_000 }).length, 0);
  });

  it('indexes tool input/output, errors, anchor state and event data as text', () => {
    assert.deepStrictEqual(
      store
        .search('config.ts')
        .map((h) => h.kind)
        .sort(),
      ['tool_call', 'tool_result'],
    );
    assert.deepStrictEqual(
      store.search('rate limited').map((h) => h.kind),
      ['error'],
    );
    assert.deepStrictEqual(
      store.search('重构').map((h) => h.name),
      ['handoff/review'],
    );
    assert.deepStrictEqual(
      store.search('"length limit"').map((h) => h.name),
      ['turn/end'],
    );
  });

  it('supports operators, phrases and prefixes; new entries are found on the next search', async () => {
    assert.deepStrictEqual(
      store.search('connection AND upgrade').map((h) => h.entryId),
      [2],
    );
    assert.deepStrictEqual(
      store.search('upgr*').map((h) => h.entryId),
      [2],
    );
    assert.deepStrictEqual(
      store.search('database NOT note').map((h) => h.sessionId),
      ['s1'],
    );
    await store.append('s3', message('m9', '新しい設定ファイル'));
    assert.deepStrictEqual(
      store.search('設定ファイル').map((h) => h.sessionId),
      ['s3'],
    );
  });

  it('bad query syntax is a clear TapeQueryError, not a crash', () => {
    for (const q of ['"unterminated', '(database', 'database)', 'AND', '   ', '。、']) {
      assert.throws(
        () => store.search(q),
        (e: Error) => e instanceof TapeQueryError && e.message.startsWith('bad search query'),
        q,
      );
    }
    assert.throws(() => store.search('database', { limit: 0 }), TapeQueryError);
  });

  it('turns CJK runs into phrases and keeps ASCII words as terms', () => {
    assert.strictEqual(parseQuery('SQLite 数据库 OR "配置 文件"', 'operators')?.match, '"sqlite" "数 据 库" OR "配 置 文 件"');
  });
});
