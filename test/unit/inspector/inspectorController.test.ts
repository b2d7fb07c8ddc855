import * as assert from 'assert';
import * as z from 'zod/mini';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import { hostToInspector, inspectorRequests, type HostToInspector, type InspectorRequests } from '../../../src/protocol/inspector';
import type { Method, ParamsOf, ReplyOf, RequestMessage } from '../../../src/protocol/requestMap';
import { TapeStore } from '../../../src/store/tapeStore';
import { anchor, fixtureLines, fixtureStore, message, toolCall } from './helpers';
import { inspectorSource } from './inspectorSource';

const S = 'inspector-sample';
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records what the controller posts, each message checked against the protocol. */
class FakeHost implements InspectorHost {
  readonly posted: HostToInspector[] = [];
  readonly copied: string[] = [];
  readonly commands: [string, (string | number)[]][] = [];
  post(m: HostToInspector): void {
    this.posted.push(hostToInspector.parse(m));
  }
  copy(text: string): void {
    this.copied.push(text);
  }
  command(name: string, args: (string | number)[]): void {
    this.commands.push([name, args]);
  }
  take(): HostToInspector[] {
    return this.posted.splice(0);
  }
}

const only = <T extends HostToInspector['type']>(m: HostToInspector | undefined, type: T): Extract<HostToInspector, { type: T }> => {
  assert.strictEqual(m?.type, type, JSON.stringify(m));
  return m as Extract<HostToInspector, { type: T }>;
};

const request = <K extends Method<InspectorRequests>>(id: number, method: K, params: ParamsOf<InspectorRequests, K>): RequestMessage => ({
  type: 'request',
  id,
  method,
  params,
});

/** The reply to request `id`, checked against the method's reply schema as the page checks it. */
const replyTo = <K extends Method<InspectorRequests>>(m: HostToInspector | undefined, id: number, method: K): ReplyOf<InspectorRequests, K> => {
  assert.ok(m?.type === 'reply' && m.ok && m.id === id, JSON.stringify(m));
  return z.parse(inspectorRequests[method].reply, m.result) as ReplyOf<InspectorRequests, K>;
};

const errorReply = (m: HostToInspector | undefined, id: number): string => {
  assert.ok(m?.type === 'reply' && !m.ok && m.id === id, JSON.stringify(m));
  return m.error;
};

describe('inspector controller', () => {
  it('ready: source (sessions newest first, titles and counts), then the transcript', async () => {
    const store = await fixtureStore();
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'sample.tape.jsonl', true), host);
    await c.handle({ type: 'ready' });
    const [source, transcript, usage, ...rest] = host.take();
    assert.deepStrictEqual(rest, []);
    const last = JSON.parse(fixtureLines()[24]).createdAt;
    assert.deepStrictEqual(only(source, 'source'), {
      type: 'source',
      label: 'sample.tape.jsonl',
      readOnly: true,
      sessions: [{ sessionId: S, title: 'Read notes.md and tell me what it says <script>alert(1)</script>', entryCount: 25, lastCreatedAt: last }],
      sessionId: S,
      headEntryId: 25,
    });
    const t = only(transcript, 'transcript');
    assert.deepStrictEqual([t.sessionId, t.headEntryId, t.offset, t.total, t.items.map((i) => i.entryId)], [S, 25, 0, 4, [4, 10, 18, 22]]);
    // The fixture's two provider/attempt entries: 900 + 700 in, 60 + 20 out, 0 + 512 cached; no session below it.
    const own = { requests: 2, inputTokens: 1600, outputTokens: 80, cachedTokens: 512, cacheCreationTokens: 0 };
    assert.deepStrictEqual(only(usage, 'usage'), { type: 'usage', sessionId: S, own, rolledUp: own, descendants: 0 });
    assert.strictEqual(c.sessionId, S);
    c.dispose();
  });

  it('answers the views, entries, entry and diff requests, each with its reply under its id; copy and command go to the host', async () => {
    const store = await fixtureStore();
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'x', true), host, { sessionId: S });
    await c.handle(request(4, 'anchors', {}));
    await c.handle(request(5, 'requests', {}));
    await c.handle(request(6, 'projections', {}));
    await c.handle(request(7, 'entries', { offset: 20, limit: 10, filter: {} }));
    await c.handle(request(8, 'entries', { offset: 0, limit: 10, filter: { kinds: ['tool_call'] } }));
    await c.handle(request(9, 'entry', { entryId: 14 }));
    await c.handle(request(10, 'diff', { a: 5, b: 19 }));
    await c.handle({ type: 'copy', text: 'copied' });
    await c.handle({ type: 'command', command: 'forkFrom', args: [S, 14] });
    const [anchors, requests, projections, page, calls, entry, diff, ...rest] = host.take();
    assert.deepStrictEqual(rest, []);
    const a = replyTo(anchors, 4, 'anchors');
    assert.deepStrictEqual(
      [a.sessionId, a.items.map((x) => [x.entryId, x.inForce])],
      [
        S,
        [
          [1, false],
          [14, true],
        ],
      ],
    );
    assert.deepStrictEqual(
      replyTo(requests, 5, 'requests').items.map((r) => r.entryId),
      [5, 19],
    );
    assert.strictEqual(replyTo(projections, 6, 'projections').view.tokenUsage.cachedTokens, 512);
    const p = replyTo(page, 7, 'entries');
    assert.deepStrictEqual([p.offset, p.total, p.rows.map((r) => r.entryId)], [20, 25, [21, 22, 23, 24, 25]]);
    assert.deepStrictEqual(
      replyTo(calls, 8, 'entries').rows.map((r) => r.name),
      ['read_file', 'tape_handoff', 'list_dir'],
    );
    assert.deepStrictEqual(replyTo(entry, 9, 'entry'), { entryId: 14, entry: fixtureLines()[13] });
    const d = replyTo(diff, 10, 'diff');
    assert.deepStrictEqual([d.added.map((i) => i.entryId), d.removed.map((i) => i.entryId)], [[null, 18], [4]]);
    assert.deepStrictEqual(host.copied, ['copied']);
    assert.deepStrictEqual(host.commands, [['forkFrom', [S, 14]]]);
    c.dispose();
  });

  it("the anchors reply carries each compaction's audit: the totals of what its summary kept and what it left out", async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [
      message('u1', 'user', 1, 'Fix src/parser.ts'),
      message('a1', 'assistant', 2, 'Reading.'),
      toolCall('a1', 'c1', 'read_file', { path: 'src/parser.ts' }),
      toolCall('a1', 'c2', 'run_command', { command: 'npm test' }),
      anchor('compaction/auto', { summary: 'Fix src/parser.ts: done, after npm test.', cursorOrderSeq: 2 }),
    ]);
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'x', false), host, { sessionId: 's' });
    await c.handle(request(1, 'anchors', {}));
    const a = replyTo(host.take()[0], 1, 'anchors');
    assert.deepStrictEqual(
      a.items.map((i) => [i.name, i.audit?.totals ?? null, i.audit?.missing ?? null]),
      [
        ['session/start', null, null],
        [
          'compaction/auto',
          {
            path: { facts: 1, inSummary: 1 },
            command: { facts: 1, inSummary: 1 },
            error: { facts: 0, inSummary: 0 },
            request: { facts: 1, inSummary: 1 },
            tool: { facts: 2, inSummary: 0 },
          },
          [
            { kind: 'tool', value: 'read_file', entryIds: [4] },
            { kind: 'tool', value: 'run_command', entryIds: [5] },
          ],
        ],
      ],
    );
    c.dispose();
  });

  it('a malformed message gets one error and changes nothing; a malformed, unknown or failing request gets an error reply', async () => {
    const store = await fixtureStore();
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'x', true), host, { sessionId: S });
    for (const bad of [
      null,
      'ready',
      { type: 'nope' },
      { type: 'request', id: '1', method: 'entries', params: { offset: 0, limit: 1, filter: {} } },
      { type: 'request', method: 'entries', params: {} },
    ]) {
      await c.handle(bad);
      const [error, ...rest] = host.take();
      assert.match(only(error, 'error').message, /^malformed message from the inspector: /);
      assert.deepStrictEqual(rest, []);
    }
    await c.handle({ type: 'request', id: 1, method: 'entries', params: { offset: '0', limit: 1, filter: {} } });
    await c.handle({ type: 'request', id: 2, method: 'anchors', params: null });
    await c.handle({ type: 'request', id: 3, method: 'load', params: { view: 'everything' } });
    const [badParams, noParams, unknown, ...none] = host.take();
    assert.deepStrictEqual(none, []);
    assert.match(errorReply(badParams, 1), /^malformed entries request: ✖ Invalid input.*\n {2}→ at offset$/);
    assert.match(errorReply(noParams, 2), /^malformed anchors request: ✖ Invalid input[^\n]*$/);
    assert.strictEqual(errorReply(unknown, 3), 'unknown request "load"');
    await c.handle({ type: 'selectSession', sessionId: 'unknown' });
    assert.deepStrictEqual(host.take(), [{ type: 'error', message: 'the tape has no session "unknown"' }]);
    assert.strictEqual(c.sessionId, S);
    await c.handle(request(4, 'diff', { a: 5, b: 4 }));
    assert.match(errorReply(host.take()[0], 4), /entry 4 \(message message\/user\) is not a view\/assembled event/);
    await c.handle(request(5, 'entries', { offset: 0, limit: 5, filter: { text: '"unterminated' } }));
    assert.match(errorReply(host.take()[0], 5), /unterminated quote/);
    c.dispose();
  });

  it('appends in one batch window become ONE appended message with only the new rows and changed items', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany('s', [message('m1', 'user', 1, 'first question'), message('m2', 'assistant', 2, 'first answer')]);
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'mem', false), host, { batchMs: 40 });
    await c.handle({ type: 'ready' });
    assert.deepStrictEqual(
      host.take().map((m) => m.type),
      ['source', 'transcript', 'usage'],
    );
    await store.append('s', message('m3', 'user', 3, 'second question'));
    await store.append('s', message('m4', 'assistant', 4, 'draft', 'pending'));
    await store.append('s', message('m4', 'assistant', 4, 'second answer'));
    await wait(120);
    const [appended, ...rest] = host.take();
    assert.deepStrictEqual(rest, []);
    const a = only(appended, 'appended');
    assert.deepStrictEqual(
      [a.sessionId, a.headEntryId, a.rows.map((r) => [r.entryId, r.summary])],
      [
        's',
        6,
        [
          [4, 'second question'],
          [5, 'draft'],
          [6, 'second answer'],
        ],
      ],
    );
    assert.deepStrictEqual(
      a.transcript.map((i) => [i.messageId, i.entryId, i.markers]),
      [
        ['m3', 4, []],
        ['m4', 6, ['revised']],
      ],
    );
    await wait(60);
    assert.deepStrictEqual(host.take(), []);
    c.dispose();
  });

  it('a new session re-posts the source; the first session of an empty tape brings its transcript', async () => {
    const store = await TapeStore.inMemory();
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'mem', false), host, { batchMs: 20 });
    await c.handle({ type: 'ready' });
    const first = only(host.take()[0], 'source');
    assert.deepStrictEqual([first.sessions, first.sessionId, first.headEntryId], [[], null, 0]);
    await store.append('a', message('m1', 'user', 1, 'hello'));
    await wait(80);
    const [source, transcript, usage, ...rest] = host.take();
    assert.deepStrictEqual([only(usage, 'usage').sessionId, rest], ['a', []]);
    assert.deepStrictEqual(
      only(source, 'source').sessions.map((s) => [s.sessionId, s.title, s.entryCount]),
      [['a', 'hello', 2]],
    );
    assert.deepStrictEqual(
      only(transcript, 'transcript').items.map((i) => i.text),
      ['hello'],
    );
    await store.append('b', message('n1', 'user', 1, 'other'));
    await wait(80);
    const [again, ...none] = host.take();
    assert.deepStrictEqual(none, []);
    const s = only(again, 'source');
    assert.deepStrictEqual([s.sessionId, s.sessions.map((x) => x.sessionId).sort()], ['a', ['a', 'b']]);
    c.dispose();
    await store.append('a', message('m2', 'assistant', 2, 'after dispose'));
    await wait(60);
    assert.deepStrictEqual(host.take(), []);
  });

  it('setSource re-announces on the new store; reveal posts the entry', async () => {
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(await fixtureStore(), 'ro', true), host, { sessionId: S });
    await c.handle({ type: 'ready' });
    host.take();
    const writable = await TapeStore.inMemory();
    await writable.appendMany(S, [message('m1', 'user', 1, 'fresh')]);
    c.setSource(inspectorSource(writable, 'rw', false));
    const [source, transcript, usage, ...rest] = host.take();
    assert.deepStrictEqual([only(usage, 'usage').own.requests, rest], [0, []]);
    assert.deepStrictEqual([only(source, 'source').readOnly, only(source, 'source').label], [false, 'rw']);
    assert.deepStrictEqual(
      only(transcript, 'transcript').items.map((i) => i.text),
      ['fresh'],
    );
    c.reveal(2);
    assert.deepStrictEqual(host.take(), [{ type: 'reveal', entryId: 2 }]);
    c.dispose();
  });

  it('the transcript opens on its last page; earlier items come by request; a compaction re-marks what the page holds', async () => {
    const store = await TapeStore.inMemory();
    await store.appendMany(
      's',
      Array.from({ length: 250 }, (_, i) => message(`m${i + 1}`, i % 2 ? 'assistant' : 'user', i + 1, `text ${i + 1}`)),
    );
    const host = new FakeHost();
    const c = new InspectorController(inspectorSource(store, 'mem', false), host, { batchMs: 20 });
    await c.handle({ type: 'ready' });
    const last = only(host.take()[1], 'transcript');
    assert.deepStrictEqual([last.offset, last.total, last.items.length, last.items[0].messageId, last.items.at(-1)?.messageId], [50, 250, 200, 'm51', 'm250']);
    await c.handle(request(7, 'transcript', { offset: 30, limit: 20 }));
    const earlier = replyTo(host.take()[0], 7, 'transcript');
    assert.deepStrictEqual(
      [earlier.sessionId, earlier.offset, earlier.total, earlier.items.map((i) => i.messageId)],
      ['s', 30, 250, Array.from({ length: 20 }, (_, i) => `m${i + 31}`)],
    );
    await store.append('s', { kind: 'anchor', name: 'compaction/auto', payload: { name: 'compaction/auto', state: { summary: 'All.', cursorOrderSeq: 250 } } });
    await wait(80);
    const a = only(host.take()[0], 'appended');
    assert.deepStrictEqual([a.transcript.length, a.transcript[0].messageId, a.transcript.every((i) => i.markers.includes('compacted'))], [220, 'm31', true]);
    await c.handle(request(8, 'transcript', { offset: 0, limit: 1e9 }));
    assert.strictEqual(replyTo(host.take()[0], 8, 'transcript').items.length, 250, 'a limit past the session is the rest of it');
    c.dispose();
  });
});
