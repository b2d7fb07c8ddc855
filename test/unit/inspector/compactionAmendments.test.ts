import * as assert from 'assert';
import * as z from 'zod/mini';
import { OpenTape } from '../../../src/agent/session/openTape';
import { amendmentMessage, fitText } from '../../../src/inspector/amendmentMessage';
import { anchorItems, anchorsOf } from '../../../src/inspector/anchorsTimeline';
import { InspectorController, type InspectorHost } from '../../../src/inspector/inspectorController';
import { anchorItem, hostToInspector, inspectorRequests, type CompactionAmendment, type HostToInspector } from '../../../src/protocol/inspector';
import { TapeStore } from '../../../src/store/tapeStore';
import { until } from '../store/helpers';
import { anchor, message, toolCall, toolResult } from './helpers';
import { inspectorSource } from './inspectorSource';

const S = 's';

/**
 * 1 session/start, 2 u1, 3 a1, 4-5 read_file, 6-7 run_command failing, 8 the compaction (missing
 * the command, lib/tokens.ts and the error), 9 u2.
 */
async function compactedStore(): Promise<TapeStore> {
  const store = await TapeStore.inMemory();
  await store.appendMany(S, [
    message('u1', 'user', 1, 'Fix the parser'),
    message('a1', 'assistant', 2, 'Reading.'),
    toolCall('a1', 'c1', 'read_file', { path: 'src/parser.ts' }),
    toolResult('a1', 'c1', 'read_file', 'ok', 'export function parse() {}'),
    toolCall('a1', 'c2', 'run_command', { command: 'npm test' }),
    toolResult('a1', 'c2', 'run_command', 'error', 'TypeError: x is not a function\n  at lib/tokens.ts'),
    anchor('compaction/auto', { summary: 'The user asked to fix the parser; read parser.ts with read_file.', cursorOrderSeq: 2 }),
    message('u2', 'user', 3, 'Now the lexer'),
  ]);
  return store;
}

/** A page's host as a panel on the workspace tape has it: amendments through the session handle, nothing confirmed by a user. */
class Host implements InspectorHost {
  readonly posted: HostToInspector[] = [];
  readonly amended: [string, number, CompactionAmendment][] = [];
  constructor(private readonly tape: OpenTape) {}
  post(m: HostToInspector): void {
    this.posted.push(hostToInspector.parse(m));
  }
  copy(): void {}
  command(): void {}
  async amend(sessionId: string, anchorEntryId: number, amendment: CompactionAmendment): Promise<{ entryId: number; message: string }> {
    this.amended.push([sessionId, anchorEntryId, amendment]);
    const receipt = await this.tape.session(sessionId).amendCompaction(amendment, anchorEntryId);
    return { entryId: receipt.entry.entryId, message: amendmentMessage(amendment, receipt, anchorsOf(this.tape.reader, sessionId)) };
  }
}

async function ask(c: InspectorController, host: Host, id: number, anchorEntryId: number, amendment: unknown): Promise<HostToInspector> {
  await c.handle({ type: 'request', id, method: 'amendCompaction', params: { anchorEntryId, amendment } });
  const reply = host.posted.find((m) => m.type === 'reply' && m.id === id);
  assert.ok(reply, `a reply to ${id}`);
  return reply;
}

describe('inspector: amending a compaction from the Anchors view', () => {
  it('anchorItems: only the compaction in force is amendable, its summary in force pre-filled; amendments are listed and the checkpoint reads the edited summary', async () => {
    const store = await compactedStore();
    const tape = new OpenTape(store);
    let items = anchorItems(tape.reader, S);
    for (const i of items) anchorItem.parse(i);
    assert.deepStrictEqual(
      items.map((i) => [i.entryId, i.amendments, i.amendable]),
      [
        [1, null, null],
        [8, null, { summary: 'The user asked to fix the parser; read parser.ts with read_file.' }],
      ],
    );

    const session = tape.session(S);
    await session.amendCompaction({ kind: 'pin', facts: [{ kind: 'command', value: 'npm test' }] }, 8);
    await session.amendCompaction({ kind: 'pin', entryIds: [7] }, 8);
    await session.amendCompaction({ kind: 'edit', summary: 'Fixing the parser; `npm test` fails in lib/tokens.ts.' }, 8);
    items = anchorItems(tape.reader, S);
    for (const i of items) anchorItem.parse(i);
    assert.deepStrictEqual(items[1].amendments, {
      pins: [10, 11],
      pinnedFacts: [{ kind: 'command', value: 'npm test' }],
      pinnedEntryIds: [7],
      summaryEntryId: 12,
      undoneBy: null,
    });
    assert.deepStrictEqual(items[1].amendable, { summary: 'Fixing the parser; `npm test` fails in lib/tokens.ts.' });
    assert.strictEqual(
      items[1].checkpoint,
      '[Checkpoint compaction/auto at entry 8: the conversation before this point is summarised here.]\n\nFixing the parser; `npm test` fails in lib/tokens.ts.',
    );

    await session.amendCompaction({ kind: 'undo' }, 8);
    items = anchorItems(tape.reader, S);
    assert.strictEqual(items[1].amendments?.undoneBy, 13);
    assert.deepStrictEqual(
      items.map((i) => i.amendable),
      [null, null],
      'nothing is amendable once the only compaction is undone',
    );
    assert.deepStrictEqual(
      items.map((i) => i.inForce),
      [false, false],
      'the next request starts from the session start',
    );
  });

  it("Pin through the page's request appends exactly one compaction/pin naming the anchor, and the reply says so", async () => {
    const store = await compactedStore();
    const host = new Host(new OpenTape(store));
    const c = new InspectorController(inspectorSource(store, 'Workspace tape', false), host, { sessionId: S, batchMs: 0 });
    await c.handle({ type: 'ready' });
    const before = store.headEntryId(S);
    const reply = await ask(c, host, 1, 8, { kind: 'pin', facts: [{ kind: 'command', value: 'npm test' }] });
    assert.ok(reply.type === 'reply' && reply.ok, JSON.stringify(reply));
    const result = z.parse(inspectorRequests.amendCompaction.reply, reply.result);
    assert.strictEqual(store.headEntryId(S), before + 1);
    const appended = store.entries(S).slice(before);
    assert.deepStrictEqual(
      appended.map((e) => [e.entryId, e.kind, e.name, e.payload.data]),
      [[before + 1, 'event', 'compaction/pin', { anchorEntryId: 8, facts: [{ kind: 'command', value: 'npm test' }] }]],
    );
    assert.deepStrictEqual(result, {
      sessionId: S,
      entryId: before + 1,
      message: `Pinned command "npm test" to the compaction #8 (entry #${before + 1}): later requests include it after the summary.`,
    });
    // The page refreshes its Anchors view on the append the host then reports, as on any other
    // (waited for, not slept on: a loaded machine reports it later than any fixed delay).
    await until(() => host.posted.some((m) => m.type === 'appended'), 'the appended message');
    const appendedMessage = host.posted.find((m) => m.type === 'appended');
    assert.deepStrictEqual(appendedMessage?.type === 'appended' && appendedMessage.rows.map((r) => [r.entryId, r.name]), [[before + 1, 'compaction/pin']]);
    c.dispose();
  });

  it('Pin of entries some already pinned: the reply names those and the pin holds only the new ones, in entry order; all of them is refused', async () => {
    const store = await compactedStore();
    const host = new Host(new OpenTape(store));
    const c = new InspectorController(inspectorSource(store, 'Workspace tape', false), host, { sessionId: S });
    const first = await ask(c, host, 1, 8, { kind: 'pin', entryIds: [7, 5] });
    assert.ok(first.type === 'reply' && first.ok, JSON.stringify(first));
    assert.strictEqual(
      z.parse(inspectorRequests.amendCompaction.reply, first.result).message,
      'Pinned entries #5, #7 to the compaction #8 (entry #10): later requests include it after the summary.',
    );
    const some = await ask(c, host, 2, 8, { kind: 'pin', entryIds: [7, 3, 7] });
    assert.ok(some.type === 'reply' && some.ok, JSON.stringify(some));
    assert.strictEqual(
      z.parse(inspectorRequests.amendCompaction.reply, some.result).message,
      'Pinned entry #3 to the compaction #8 (entry #11): later requests include it after the summary. Entry #7 was already pinned.',
    );
    assert.deepStrictEqual(
      store
        .entries(S)
        .slice(9)
        .map((e) => e.payload.data),
      [
        { anchorEntryId: 8, entryIds: [5, 7] },
        { anchorEntryId: 8, entryIds: [3] },
      ],
    );
    const all = await ask(c, host, 3, 8, { kind: 'pin', entryIds: [5, 3] });
    assert.ok(all.type === 'reply' && !all.ok);
    assert.strictEqual(all.error, 'entries 3, 5 are already pinned');
    const event = await ask(c, host, 4, 8, { kind: 'pin', entryIds: [1] });
    assert.ok(event.type === 'reply' && !event.ok);
    assert.strictEqual(event.error, 'entry 1 is a session/start anchor; only messages, tool calls, tool results and errors can be pinned');
    assert.strictEqual(store.headEntryId(S), 11, 'nothing was appended');
    c.dispose();
  });

  it('a stale anchor, an invalid pin and a read-only tape are refused with a reason, and nothing is written', async () => {
    const store = await compactedStore();
    await new OpenTape(store).session(S).amendCompaction({ kind: 'undo' }, 8);
    await store.append(S, anchor('compaction/manual', { summary: 'Lexer next.', cursorOrderSeq: 3 }));
    const head = store.headEntryId(S);
    const host = new Host(new OpenTape(store));
    const c = new InspectorController(inspectorSource(store, 'Workspace tape', false), host, { sessionId: S });

    const stale = await ask(c, host, 1, 8, { kind: 'pin', facts: [{ kind: 'command', value: 'npm test' }] });
    assert.ok(stale.type === 'reply' && !stale.ok);
    assert.strictEqual(stale.error, `entry 8 is not the compaction in force (that is compaction/manual at entry ${head}); reload and try again`);

    const inRange = await ask(c, host, 2, head, { kind: 'pin', entryIds: [head + 5] });
    assert.ok(inRange.type === 'reply' && !inRange.ok);
    assert.match(inRange.error, new RegExp(`entry ${head + 5} is not in the session`));

    const malformed = await ask(c, host, 3, head, { kind: 'delete' });
    assert.ok(malformed.type === 'reply' && !malformed.ok);
    assert.match(malformed.error, /^malformed amendCompaction request/);
    assert.strictEqual(host.amended.length, 2, 'a malformed request never reaches the host');
    assert.strictEqual(store.headEntryId(S), head, 'nothing was appended');

    const readOnly = new InspectorController(inspectorSource(store, 'Workspace tape', true), host, { sessionId: S });
    const refused = await ask(readOnly, host, 4, head, { kind: 'undo' });
    assert.ok(refused.type === 'reply' && !refused.ok);
    assert.strictEqual(refused.error, 'this tape is read-only here: nothing was amended');
    // A tape file's editor: its host has no way to amend.
    const noAmend: InspectorHost = { post: (m) => host.post(m), copy: () => undefined, command: () => undefined };
    const editor = new InspectorController(inspectorSource(store, 'x.tape.jsonl', false), noAmend, { sessionId: S });
    await editor.handle({ type: 'request', id: 5, method: 'amendCompaction', params: { anchorEntryId: head, amendment: { kind: 'undo' } } });
    assert.ok(host.posted.some((m) => m.type === 'reply' && m.id === 5 && !m.ok));
    assert.strictEqual(store.headEntryId(S), head, 'nothing was appended');
    for (const x of [c, readOnly, editor]) x.dispose();
  });

  it('a declined undo appends nothing and says so', async () => {
    const store = await compactedStore();
    const host: InspectorHost = { post: (m) => posted.push(m), copy: () => undefined, command: () => undefined, amend: async () => null };
    const posted: HostToInspector[] = [];
    const c = new InspectorController(inspectorSource(store, 'Workspace tape', false), host, { sessionId: S });
    await c.handle({ type: 'request', id: 1, method: 'amendCompaction', params: { anchorEntryId: 8, amendment: { kind: 'undo' } } });
    assert.deepStrictEqual(posted, [{ type: 'reply', id: 1, ok: true, result: { sessionId: S, entryId: null, message: 'Nothing was appended.' } }]);
    c.dispose();
  });

  it('after an undo the reply says where the next context starts and what does not fit', () => {
    const anchors = [
      { entryId: 1, name: 'session/start' },
      { entryId: 8, name: 'compaction/auto' },
    ];
    assert.strictEqual(
      fitText({ anchorEntryId: null, estimatedTokens: 1234, budget: null, outOfBudget: [] }, anchors),
      'The next request starts from the session start; about 1,234 tokens, and no recorded request gives a window to fit them to.',
    );
    assert.strictEqual(
      fitText({ anchorEntryId: 8, estimatedTokens: 900, budget: 1000, outOfBudget: [] }, anchors),
      'The next request starts from compaction/auto #8; about 900 tokens of a budget of 1,000; everything fits.',
    );
    const many = Array.from({ length: 12 }, (_, i) => i + 2);
    assert.strictEqual(
      fitText({ anchorEntryId: null, estimatedTokens: 990, budget: 1000, outOfBudget: many }, anchors),
      'The next request starts from the session start; about 990 tokens of a budget of 1,000; 12 entries would be left out: #2, #3, #4, #5, #6, #7, #8, #9, #10, #11 and 2 more.',
    );
    assert.strictEqual(
      amendmentMessage(
        { kind: 'undo' },
        { entry: { entryId: 13 }, anchorEntryId: 8, fit: { anchorEntryId: null, estimatedTokens: 10, budget: 100, outOfBudget: [4] } },
        anchors,
      ),
      'Undid the compaction #8 (entry #13). The next request starts from the session start; about 10 tokens of a budget of 100; 1 entry would be left out: #4.',
    );
  });
});
