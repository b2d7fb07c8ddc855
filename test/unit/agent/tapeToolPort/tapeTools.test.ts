import * as assert from 'assert';
import { TAPE_TOOLS } from '../../../../src/agent/tools/tapeTools';
import { toolSpec } from '../../../../src/agent/tools/tool';
import type { TapeStore } from '../../../../src/store/tapeStore';
import { contextFrom } from '../../../../src/tape/context';
import { FoldCache } from '../../../../src/tape/foldCache';
import { assistant, callTool, demoStore, user } from './fixture';
import { forkSession } from '../../../../src/store/forks';
import { linkSubagent, startSubagent } from '../../../../src/store/subagentLinks';

const entryOf = (store: TapeStore, sessionId: string) => (id: number) => store.requireEntry(sessionId, id);

describe('tape tools', () => {
  let store: TapeStore;
  beforeEach(async () => (store = await demoStore()));
  afterEach(() => store.close());

  it('are the five tape_* tools with JSON Schemas from their zod inputs', () => {
    assert.deepStrictEqual(
      TAPE_TOOLS.map((t) => t.name),
      ['tape_search', 'tape_context', 'tape_handoff', 'tape_info', 'tape_anchors'],
    );
    const search = toolSpec(TAPE_TOOLS[0]).parameters as { properties: Record<string, unknown>; required: string[] };
    assert.deepStrictEqual(Object.keys(search.properties), ['query', 'kinds', 'limit', 'scope']);
    assert.deepStrictEqual(search.required, ['query']);
  });

  it('without a tape in the tool context every tape tool answers with an error result', async () => {
    for (const [name, input] of [
      ['tape_search', { query: 'x' }],
      ['tape_context', { entryIds: [1] }],
      ['tape_handoff', { name: 'a', summary: 's' }],
      ['tape_info', {}],
      ['tape_anchors', {}],
    ] as const) {
      const r = await callTool(null, name, input);
      assert.strictEqual(r.status, 'error', name);
      assert.match(r.output, new RegExp(`${name} is unavailable: this agent has no tape`));
    }
  });

  describe('tape_search', () => {
    it('finds ranked hits with entry ids and marked snippets, in the current session only', async () => {
      const r = await callTool(store, 'tape_search', { query: 'database' });
      assert.strictEqual(r.status, 'ok');
      assert.match(r.output, /^1 hit, best first:\n#3 message message\/user \(score [\d.]+\): Fix the «database» connection timeout$/);
      const s2 = await callTool(store, 'tape_search', { query: 'database' }, 's2');
      assert.match(s2.output, /^2 hits/);
      assert.doesNotMatch(s2.output, /Fix the/);
    });

    it('filters by kinds and caps at limit', async () => {
      const calls = await callTool(store, 'tape_search', { query: 'timeout*', kinds: ['tool_result'] });
      assert.match(calls.output, /^1 hit, best first:\n#6 tool_result read_file /);
      const all = await callTool(store, 'tape_search', { query: 'timeout*', limit: 2 });
      assert.strictEqual(all.output.split('\n').length, 3);
      assert.match(all.output, /^2 hits/);
    });

    it('says when nothing matches; bad query syntax and invalid input are error results', async () => {
      assert.deepStrictEqual(await callTool(store, 'tape_search', { query: 'zebra' }), { status: 'ok', output: 'no entries match "zebra"' });
      const bad = await callTool(store, 'tape_search', { query: '"open' });
      assert.strictEqual(bad.status, 'error');
      assert.match(bad.output, /tape_search failed: .*unterminated quote/);
      for (const input of [{}, { query: '  ' }, { query: 'x', kinds: ['memo'] }, { query: 'x', limit: 0 }]) {
        const r = await callTool(store, 'tape_search', input);
        assert.strictEqual(r.status, 'error', JSON.stringify(input));
        assert.match(r.output, /^invalid input for tape_search: /);
      }
    });
  });

  describe('scope: linked subagents and forks', () => {
    /** s1 links a finished child; the child is written to after the link, which the parent must not see. */
    async function withChild(): Promise<string> {
      const { childSessionId } = await startSubagent(store, 's1', { task: 'look for the walrus' });
      await store.append(childSessionId, assistant('c1', 1, 'The walrus is in src/zoo.ts'));
      await linkSubagent(store, 's1', childSessionId, 'completed');
      await store.append(childSessionId, assistant('c2', 2, 'Another walrus, after the link'));
      return childSessionId;
    }

    it('tape_search with scope linked finds a child entry but nothing past its frozen head; current does not see it', async () => {
      const child = await withChild();
      const linked = await callTool(store, 'tape_search', { query: 'walrus', scope: 'linked' });
      assert.strictEqual(linked.status, 'ok');
      assert.match(linked.output, new RegExp(`^2 hits, best first:\\n#\\d in ${child} `));
      assert.doesNotMatch(linked.output, /after the link/);
      assert.deepStrictEqual(await callTool(store, 'tape_search', { query: 'walrus' }), { status: 'ok', output: 'no entries match "walrus"' });
      const both = await callTool(store, 'tape_search', { query: 'walrus OR database', scope: 'current_and_linked' });
      assert.match(both.output, /^3 hits/);
    });

    it('tape_context reads a linked child up to its frozen head, and refuses what is not a direct link', async () => {
      const child = await withChild();
      const r = await callTool(store, 'tape_context', { entryIds: [3], before: 0, after: 5, scope: 'linked', session: child });
      assert.strictEqual(r.status, 'ok');
      assert.strictEqual(r.output, '>#3 message message/assistant: assistant: The walrus is in src/zoo.ts');
      const refused = await callTool(store, 'tape_context', { entryIds: [1], scope: 'linked', session: 's2' });
      assert.deepStrictEqual(refused, { status: 'error', output: '"s2" is not a linked child of "s1"; only direct children are readable' });
      assert.match((await callTool(store, 'tape_context', { entryIds: [1], session: child })).output, /use it with scope linked/);
      assert.match((await callTool(store, 'tape_context', { entryIds: [1], scope: 'linked' })).output, /scope linked needs `session`/);
    });

    it('in a fork, search and context read the parent through up to the fork point', async () => {
      const { forkSessionId } = await forkSession(store, 's1', { at: 3 });
      await store.append(forkSessionId, user('u9', 9, 'What about the database pool size?'));
      const hits = await callTool(store, 'tape_search', { query: 'database' }, forkSessionId);
      assert.match(hits.output, /^2 hits/);
      const ctx = await callTool(store, 'tape_context', { entryIds: [5], before: 2, after: 0 }, forkSessionId);
      assert.deepStrictEqual(
        ctx.output.split('\n').map((l) => l.slice(0, 14)),
        [' #3 message me', ' #4 anchor for', '>#5 message me'],
      );
    });
  });

  describe('tape_context', () => {
    it('shows the entries asked for with a window of neighbours, marking the ones asked for', async () => {
      const r = await callTool(store, 'tape_context', { entryIds: [5], before: 1, after: 1 });
      assert.strictEqual(r.status, 'ok');
      assert.strictEqual(
        r.output,
        [
          ' #4 message message/assistant: assistant: Reading the config first.',
          '>#5 tool_call read_file: call t1 {"path":"src/db.ts"}',
          ' #6 tool_result read_file: result t1 ok: export const timeoutMs = 10;',
        ].join('\n'),
      );
    });

    it('merges overlapping windows, clamps to the session, and names ids that are not in it', async () => {
      const r = await callTool(store, 'tape_context', { entryIds: [1, 2, 99], before: 3, after: 0 });
      assert.deepStrictEqual(
        r.output.split('\n').map((l) => l.slice(0, 3)),
        ['>#1', '>#2', '[no'],
      );
      assert.match(r.output, /\[not in this session: #99\]$/);
      const none = await callTool(store, 'tape_context', { entryIds: [50] });
      assert.deepStrictEqual(none, { status: 'error', output: 'no entry 50 in this session (head 7)' });
    });

    it('cuts long entries and caps the whole output in bytes', async () => {
      const long = 'ü'.repeat(3000);
      await store.appendMany(
        's1',
        Array.from({ length: 12 }, (_, i) => user(`x${i}`, 10 + i, long)),
      );
      const r = await callTool(store, 'tape_context', { entryIds: [8], after: 11, before: 0 });
      assert.strictEqual(r.status, 'ok');
      assert.ok(Buffer.byteLength(r.output) <= 16 * 1024 + 200, `${Buffer.byteLength(r.output)} bytes`);
      assert.match(r.output, /\[… 1006 more characters\]/);
      assert.match(r.output, /\[8 more entries left out at 16384 bytes; ask for fewer ids or a smaller window\]$/);
    });

    it('refuses empty or non-integer ids', async () => {
      for (const input of [{ entryIds: [] }, { entryIds: [0] }, { entryIds: [1.5] }, { entryIds: [1], before: -1 }]) {
        const r = await callTool(store, 'tape_context', input);
        assert.strictEqual(r.status, 'error', JSON.stringify(input));
        assert.match(r.output, /^invalid input for tape_context: /);
      }
    });
  });

  describe('tape_handoff', () => {
    it('appends a handoff/<name> anchor with {summary, state}; the default context then starts from its checkpoint', async () => {
      const r = await callTool(store, 'tape_handoff', { name: 'fix-db_2', summary: 'Raised the timeout to 5000 ms.', state: { next: 'run the tests' } });
      assert.deepStrictEqual(r, { status: 'ok', output: "appended anchor handoff/fix-db_2 at entry 8; the next request's context starts from it" });
      const anchor = store.getEntry('s1', 8);
      assert.deepStrictEqual(anchor?.payload, {
        name: 'handoff/fix-db_2',
        state: { summary: 'Raised the timeout to 5000 ms.', state: { next: 'run the tests' } },
      });

      await store.appendMany('s1', [user('u3', 4, 'Now run the tests'), assistant('a3', 5, 'Running them.')]);
      const ctx = contextFrom(new FoldCache(store), 's1', { kind: 'last' }, entryOf(store, 's1'));
      assert.strictEqual(ctx.anchorEntryId, 8);
      assert.deepStrictEqual(
        ctx.messages.map((m) => [m.role, m.source, m.entryId]),
        [
          ['system', 'tape', 2],
          ['user', 'synthetic', null],
          ['user', 'tape', 9],
          ['assistant', 'tape', 10],
        ],
      );
      assert.match(
        ctx.messages[1].content,
        /^\[Checkpoint handoff\/fix-db_2 at entry 8: .*\]\n\nRaised the timeout to 5000 ms\.\n\nState:\nstate:\n {2}next: run the tests$/,
      );
    });

    it('refuses names that are not lowercase words, digits, - and _; appends nothing', async () => {
      for (const name of ['Fix', 'fix db', 'handoff/x', '-x', 'x-', '', 'é']) {
        const r = await callTool(store, 'tape_handoff', { name, summary: 's' });
        assert.strictEqual(r.status, 'error', name);
        assert.match(r.output, /^invalid input for tape_handoff: ✖ .*\n {2}→ at name$/);
      }
      const blank = await callTool(store, 'tape_handoff', { name: 'ok', summary: '  ' });
      assert.match(blank.output, /^invalid input for tape_handoff: ✖ .*\n {2}→ at summary$/);
      assert.strictEqual(store.headEntryId('s1'), 7);
    });
  });

  describe('tape_info', () => {
    it('reports the session, title, head, counts by kind and anchors', async () => {
      await callTool(store, 'tape_handoff', { name: 'h', summary: 's' });
      const r = await callTool(store, 'tape_info', {});
      assert.deepStrictEqual(r, {
        status: 'ok',
        output: [
          'session: s1',
          'title: Fix the database connection timeout',
          'head entry: 8',
          'entries by kind: anchor 2, system 1, message 3, tool_call 1, tool_result 1',
          'anchors: 2',
        ].join('\n'),
      });
      assert.strictEqual(
        (await callTool(store, 'tape_info', {}, 'empty')).output,
        'session: empty\ntitle: (none yet)\nhead entry: 0\nentries by kind: none\nanchors: 0',
      );
    });
  });

  describe('tape_anchors', () => {
    it('lists the anchors and marks the reconstruction anchor in force', async () => {
      assert.strictEqual(
        (await callTool(store, 'tape_anchors', {})).output,
        '#1 session/start\nno compaction or handoff anchor: the context starts at the beginning of the session',
      );
      await callTool(store, 'tape_handoff', { name: 'first', summary: 'one' });
      await store.append('s1', { kind: 'anchor', name: 'memory/note', payload: { name: 'memory/note', state: {} } });
      await callTool(store, 'tape_handoff', { name: 'second', summary: 'two' });
      const r = await callTool(store, 'tape_anchors', {});
      assert.strictEqual(
        r.output,
        [
          '#1 session/start',
          '#8 handoff/first',
          '#9 memory/note',
          '#10 handoff/second  <- in force: the context starts here',
          'in force: handoff/second (#10)',
        ].join('\n'),
      );
    });
  });
});
