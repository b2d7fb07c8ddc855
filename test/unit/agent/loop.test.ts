import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runTurn, type TurnDeps } from '../../../src/agent/loop';
import { ProviderError } from '../../../src/agent/model/providerError';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { ToolRegistry } from '../../../src/agent/tools/tool';
import { WORKSPACE_TOOLS } from '../../../src/agent/tools/workspaceTools';
import type { TurnEvent, TurnOutcome } from '../../../src/agent/turnEvent';
import type { Permissions } from '../../../src/agent/workspace/permissions';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { foldAll } from '../../../src/tape/fold';
import { manifestOfEntry } from '../../../src/tape/manifest';
import { TapeAssembler } from '../../support/tapeAssembler';
import { TempWorkspace } from './tools/fixture';

const SESSION = 's1';
const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2, jitter: 0, maxRetryAfterMs: 1_000 };

interface Run {
  outcome: TurnOutcome;
  events: TurnEvent[];
  model: ScriptedModel;
}

describe('runTurn (the agent loop)', () => {
  let dir: string;
  let store: TapeStore;
  let ws: TempWorkspace;
  let turns: number;
  const registry = new ToolRegistry(WORKSPACE_TOOLS);

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-loop-'));
    store = await TapeStore.open(path.join(dir, 'loop.tape.sqlite'));
    ws = new TempWorkspace({ 'notes.txt': 'hello from the file\n' });
    turns = 0;
  });
  afterEach(async () => {
    await store.close();
    ws.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function run(
    responses: (readonly ScriptedStep[])[],
    text: string,
    over: Partial<TurnDeps> & { permissions?: Permissions; onEventToo?: (e: TurnEvent) => void } = {},
  ): Promise<Run> {
    const model = new ScriptedModel(responses);
    const assembler = new TapeAssembler(store, SESSION, model, registry);
    const events: TurnEvent[] = [];
    const { permissions, onEventToo, ...deps } = over;
    const outcome = await runTurn(
      {
        tape: store,
        sessionId: SESSION,
        newTurnId: () => `turn-${++turns}`,
        lastOrderSeq: assembler.lastOrderSeq,
        model,
        tools: registry,
        toolContext: { workspace: ws.ctx().workspace, permissions: permissions ?? { edits: true, commands: true } },
        assemble: assembler.assemble,
        maxRounds: 8,
        signal: new AbortController().signal,
        retry: FAST_RETRY,
        now: () => 0, // a still clock: only the size threshold makes revisions, so counts are exact
        onEvent: (e) => {
          events.push(e);
          onEventToo?.(e);
        },
        ...deps,
      },
      { text },
    );
    return { outcome, events, model };
  }

  const entries = (): Entry[] => store.entries(SESSION);
  const named = (name: string): Entry[] => entries().filter((e) => e.name === name);
  const data = (e: Entry): Record<string, unknown> => e.payload.data as Record<string, unknown>;
  const assistants = (): Entry[] => named('message/assistant');

  it('a turn where the model reads a file and then answers is on the tape, request by request', async () => {
    const { outcome, events, model } = await run(
      [
        [
          { text: 'Let me look.' },
          { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.txt' } } },
          { usage: { inputTokens: 40, outputTokens: 9, cachedInputTokens: 12 } },
        ],
        [{ text: 'The file says hello.' }, { usage: { inputTokens: 70, outputTokens: 5 } }],
      ],
      'What does notes.txt say?',
    );
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(outcome.rounds, 2);
    assert.strictEqual(outcome.text, 'The file says hello.');

    assert.deepStrictEqual(
      entries().map((e) => `${e.kind} ${e.name}${e.kind === 'message' ? ` ${String(e.payload.status)}` : ''}`),
      [
        'anchor session/start',
        'event turn/start',
        'message message/user sent',
        // The tool set, once: the second request offers the same one.
        'system system/tools',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant sent',
        'tool_call read_file',
        'tool_result read_file',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant sent',
        'event turn/end',
      ],
    );
    for (const e of entries().slice(1)) assert.strictEqual(e.meta.turnId, outcome.turnId, `${e.name} has the turn id`);
    for (const e of [...named('message/user'), ...assistants()]) assert.strictEqual(e.payload.turnId, outcome.turnId);

    const [first, second] = named('view/assembled').map(manifestOfEntry);
    assert.deepStrictEqual([first.requestSeq, second.requestSeq], [1, 2]);
    assert.ok(second.latestEntryId > first.latestEntryId);
    const attempts = named('provider/attempt').map(data);
    assert.deepStrictEqual(
      attempts.map((a) => [a.requestSeq, a.attempt, a.status, a.stopReason, a.retryDecision]),
      [
        [1, 1, 'ok', 'tool_calls', 'none'],
        [2, 1, 'ok', 'stop', 'none'],
      ],
    );
    assert.deepStrictEqual(attempts[0].usage, { inputTokens: 40, outputTokens: 9, cachedTokens: 12, estimated: false });
    assert.strictEqual(typeof attempts[0].durationMs, 'number');

    const [call] = named('read_file').filter((e) => e.kind === 'tool_call');
    const [result] = named('read_file').filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual(call.payload.input, { path: 'notes.txt' });
    assert.strictEqual(result.payload.status, 'ok');
    assert.match(String(result.payload.output), /hello from the file/);
    assert.strictEqual(result.payload.truncated, false);
    assert.strictEqual(call.payload.messageId, assistants()[0].payload.messageId);

    // The second request was built from the tape after the result was appended.
    const toolMessage = model.requests[1].messages.find((m) => m.role === 'tool');
    assert.ok(toolMessage?.content.includes('hello from the file'));
    assert.strictEqual(named('turn/end').map(data)[0].outcome, 'answer');

    const view = foldAll(store.foldRows(SESSION, 0), { includePending: false });
    assert.deepStrictEqual(
      view.messages.map((m) => [m.role, m.status]),
      [
        ['user', 'sent'],
        ['assistant', 'sent'],
        ['assistant', 'sent'],
      ],
    );
    assert.deepStrictEqual(
      view.toolCalls.map((c) => [c.messageId, c.name]),
      [[view.messages[1].messageId, 'read_file']],
    );
    assert.deepStrictEqual(
      view.toolResults.map((r) => [r.toolCallId, r.status]),
      [['c1', 'ok']],
    );

    assert.deepStrictEqual(
      events.map((e) => e.type),
      ['text', 'tool_call', 'tool_result', 'text', 'turn_end'],
    );
    for (const e of events) assert.deepStrictEqual(JSON.parse(JSON.stringify(e)), e, 'events are plain JSON');
    assert.deepStrictEqual(events[events.length - 1], { type: 'turn_end', turnId: outcome.turnId, sessionId: SESSION, outcome: 'answer', rounds: 2 });
  });

  it('records the tool set before the request that offers it, and refuses a request whose tools are not the ones its manifest hashes', async () => {
    const model = new ScriptedModel([[{ text: 'never sent' }]]);
    const assembler = new TapeAssembler(store, SESSION, model, registry);
    // An assembler that hands the port other tools than the ones it hashed: what is recorded would not be what is sent.
    const assemble = (slot: Parameters<TurnDeps['assemble']>[0]) => {
      const a = assembler.assemble(slot);
      return { ...a, request: { ...a.request, tools: a.request.tools.slice(1) } };
    };
    await assert.rejects(run([], 'hi', { model, assemble }), /the tools sent hash to [0-9a-f]{64}, its manifest says [0-9a-f]{64}/);
    assert.strictEqual(model.requests.length, 0, 'nothing was sent');
    assert.deepStrictEqual(named('system/tools'), []);
  });
  it('orders the next turn after the last one and gives it its own id', async () => {
    const one = await run([[{ text: 'first' }]], 'one');
    const two = await run([[{ text: 'second' }]], 'two');
    assert.notStrictEqual(one.outcome.turnId, two.outcome.turnId);
    const seqs = entries()
      .filter((e) => e.kind === 'message')
      .map((e) => [e.payload.content, e.payload.orderSeq as number]);
    assert.deepStrictEqual(
      seqs.map((s) => s[0]),
      ['one', 'first', 'two', 'second'],
    );
    const orders = seqs.map((s) => s[1] as number);
    assert.deepStrictEqual(
      [...orders].sort((a, b) => a - b),
      orders,
    );
    assert.strictEqual(new Set(orders).size, 4);
    // The second request of the session saw the first turn.
    assert.deepStrictEqual(
      two.model.requests[0].messages.map((m) => m.content),
      ['one', 'first', 'two'],
    );
  });

  it('throttles pending revisions: a 2,000-token answer writes a handful, then the sent version', async () => {
    const tokens = Array.from({ length: 2000 }, (_, i) => ({ text: `tok${i % 10} ` }));
    const { outcome } = await run([tokens], 'write a lot');
    const full = tokens.map((t) => t.text).join('');
    assert.strictEqual(outcome.text, full);
    const versions = assistants();
    const pending = versions.filter((e) => e.payload.status === 'pending');
    // 10,000 characters at one revision per 2,048 (the still clock never makes the interval due).
    assert.strictEqual(pending.length, 4);
    assert.ok(pending.every((e, i) => i === 0 || String(e.payload.content).startsWith(String(pending[i - 1].payload.content))));
    assert.deepStrictEqual(new Set(versions.map((e) => e.payload.messageId)).size, 1);
    assert.strictEqual(versions[versions.length - 1].payload.status, 'sent');
    assert.strictEqual(versions[versions.length - 1].payload.content, full);
    const view = foldAll(store.foldRows(SESSION, 0), { includePending: true });
    assert.deepStrictEqual(
      view.messages.map((m) => m.status),
      ['sent', 'sent'],
    );
  });

  it('throttles by time too: at most one revision per interval', async () => {
    let clock = 0;
    const tokens = Array.from({ length: 2000 }, () => ({ text: 'x' }));
    await run([tokens], 'slow stream', { now: () => (clock += 1), throttle: { intervalMs: 250, maxChars: 1_000_000 } });
    const pending = assistants().filter((e) => e.payload.status === 'pending');
    // About 2,000 ms of stream at one revision per 250 ms.
    assert.ok(pending.length >= 6 && pending.length <= 9, `${pending.length} revisions`);
  });

  it('SPEC 3.11: every model request has exactly one manifest; a transient retry reuses it (429 then success: two attempts, one manifest)', async () => {
    const { outcome, model } = await run([[{ error: new ProviderError('rate_limit', { status: 429, retryAfterMs: 5 }) }], [{ text: 'ok after retry' }]], 'hi');
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(outcome.text, 'ok after retry');
    assert.strictEqual(model.requests.length, 2);
    assert.strictEqual(named('view/assembled').length, 1);
    const attempts = named('provider/attempt').map(data);
    assert.deepStrictEqual(
      attempts.map((a) => [a.requestSeq, a.attempt, a.status, a.failureClass, a.retryDecision, a.delayMs]),
      [
        [1, 1, 'error', 'rate_limit', 'retry', 5],
        [1, 2, 'ok', undefined, 'none', undefined],
      ],
    );
    assert.strictEqual(named('error/provider').length, 0);
  });

  it('an invalid call, input that fails the schema and a refused edit become error results, and the turn goes on', async () => {
    const { outcome, model } = await run(
      [
        [
          { toolCall: { id: 'bad-json', name: 'read_file', arguments: '{"path": notes' } },
          { toolCall: { id: 'bad-input', name: 'read_file', arguments: { file: 'notes.txt' } } },
          { toolCall: { id: 'edit', name: 'apply_edit', arguments: { path: 'new.txt', newText: 'hi' } } },
        ],
        [{ text: 'I could not do that.' }],
      ],
      'try things',
      { permissions: { edits: false, commands: false } },
    );
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(outcome.rounds, 2);
    assert.strictEqual(ws.exists('new.txt'), false);
    const results = entries().filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual(
      results.map((r) => [r.payload.toolCallId, r.payload.status]),
      [
        ['bad-json', 'error'],
        ['bad-input', 'error'],
        ['edit', 'error'],
      ],
    );
    assert.match(String(results[0].payload.output), /not valid JSON/);
    assert.match(String(results[1].payload.output), /path/);
    const badCall = entries().find((e) => e.kind === 'tool_call' && e.payload.toolCallId === 'bad-json');
    assert.strictEqual(badCall?.payload.input, '{"path": notes');
    // The model saw the three errors in its next request.
    const seen = model.requests[1].messages.filter((m) => m.role === 'tool').map((m) => m.toolCallId);
    assert.deepStrictEqual(seen, ['bad-json', 'bad-input', 'edit']);
    // Each failure is findable by kind too, with the call it belongs to.
    assert.deepStrictEqual(
      named('error/tool').map((e) => [e.payload.kind, (e.payload.details as { toolCallId: string }).toolCallId]),
      [
        ['invalid_input', 'bad-json'],
        ['tool', 'bad-input'],
        ['tool', 'edit'],
      ],
    );
  });

  it('stops at the round limit with outcome round_limit', async () => {
    const again = [{ toolCall: { id: 'c', name: 'list_dir', arguments: { path: '.' } } }];
    const { outcome, model } = await run([again, again, again], 'loop forever', { maxRounds: 2 });
    assert.strictEqual(outcome.outcome, 'round_limit');
    assert.strictEqual(outcome.rounds, 2);
    assert.strictEqual(model.remaining, 1);
    assert.strictEqual(named('view/assembled').length, 2);
    assert.strictEqual(entries().filter((e) => e.kind === 'tool_result').length, 2);
    assert.deepStrictEqual(
      named('turn/end')
        .map(data)
        .map((d) => [d.outcome, d.rounds]),
      [['round_limit', 2]],
    );
  });

  it('cancel mid-stream keeps the partial text with status error and ends cancelled', async () => {
    const controller = new AbortController();
    const chunks = Array.from({ length: 10 }, (_, i) => ({ text: `chunk${i} ` }));
    let texts = 0;
    const { outcome, events } = await run([chunks], 'stream then stop', {
      signal: controller.signal,
      throttle: { intervalMs: 250, maxChars: 10 },
      onEventToo: (e) => {
        if (e.type === 'text' && ++texts === 3) controller.abort();
      },
    });
    assert.strictEqual(outcome.outcome, 'cancelled');
    assert.strictEqual(outcome.text, 'chunk0 chunk1 chunk2 ');
    const versions = assistants();
    assert.ok(
      versions.some((e) => e.payload.status === 'pending'),
      'pending revisions were written before the cancel',
    );
    const last = versions[versions.length - 1];
    assert.deepStrictEqual([last.payload.status, last.payload.content], ['error', 'chunk0 chunk1 chunk2 ']);
    const [attempt] = named('provider/attempt').map(data);
    assert.deepStrictEqual([attempt.status, attempt.failureClass, attempt.stopReason], ['error', 'cancelled', 'cancelled']);
    assert.deepStrictEqual(
      named('turn/end')
        .map(data)
        .map((d) => d.outcome),
      ['cancelled'],
    );
    assert.strictEqual(events[events.length - 1].type, 'turn_end');
    // Every view shows the error version, not a pending one left behind.
    for (const includePending of [false, true]) {
      const view = foldAll(store.foldRows(SESSION, 0), { includePending });
      assert.deepStrictEqual(
        view.messages.map((m) => m.status),
        ['sent', 'error'],
      );
    }
  });

  it('cancel while a tool runs stops it through ctx.signal and closes every call of the message', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const { outcome } = await run(
      [
        [
          { toolCall: { id: 'slow', name: 'run_command', arguments: { command: 'sleep 20' } } },
          { toolCall: { id: 'next', name: 'read_file', arguments: { path: 'notes.txt' } } },
        ],
      ],
      'run something slow',
      {
        signal: controller.signal,
        onEventToo: (e) => {
          if (e.type === 'tool_call' && e.toolCallId === 'slow') setTimeout(() => controller.abort(), 100);
        },
      },
    );
    assert.ok(Date.now() - started < 10_000, 'the command was stopped');
    assert.strictEqual(outcome.outcome, 'cancelled');
    const results = entries().filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual(
      results.map((r) => [r.payload.toolCallId, r.payload.status]),
      [
        ['slow', 'error'],
        ['next', 'error'],
      ],
    );
    assert.match(String(results[1].payload.output), /not run/);
    assert.strictEqual(named('view/assembled').length, 1);
  });

  it('a provider failure after retries is an error/provider entry and ends the turn with provider_error', async () => {
    const unavailable = () => [{ error: new ProviderError('server', { status: 503, detail: 'overloaded' }) }];
    const { outcome, events } = await run([unavailable(), unavailable(), unavailable()], 'hello?');
    assert.strictEqual(outcome.outcome, 'provider_error');
    assert.strictEqual(outcome.error?.failureClass, 'server');
    const attempts = named('provider/attempt').map(data);
    assert.deepStrictEqual(
      attempts.map((a) => a.retryDecision),
      ['retry', 'retry', 'give_up'],
    );
    const [error] = named('error/provider');
    assert.strictEqual(error.kind, 'error');
    assert.strictEqual(error.payload.kind, 'provider');
    assert.match(String(error.payload.message), /HTTP 503.*overloaded/);
    assert.deepStrictEqual(error.payload.details, { turnId: outcome.turnId, requestSeq: 1, failureClass: 'server', transient: true, status: 503 });
    assert.strictEqual(error.meta.turnId, outcome.turnId);
    assert.strictEqual(assistants().length, 0);
    assert.deepStrictEqual(
      named('turn/end')
        .map(data)
        .map((d) => d.outcome),
      ['provider_error'],
    );
    assert.deepStrictEqual(
      events.map((e) => e.type),
      ['error', 'turn_end'],
    );
  });

  it('a failure mid-stream is not retried and keeps the partial text with status error', async () => {
    const { outcome } = await run([[{ text: 'half an ans' }, { error: new ProviderError('server', { status: 500 }) }]], 'hello?');
    assert.strictEqual(outcome.outcome, 'provider_error');
    assert.deepStrictEqual(
      named('provider/attempt')
        .map(data)
        .map((a) => [a.status, a.retryDecision]),
      [['error', 'give_up']],
    );
    assert.deepStrictEqual(
      assistants().map((e) => [e.payload.status, e.payload.content]),
      [['error', 'half an ans']],
    );
  });

  it('auth failure is not retried', async () => {
    const { outcome } = await run([[{ error: new ProviderError('auth', { status: 401 }) }]], 'hello?');
    assert.strictEqual(outcome.outcome, 'provider_error');
    assert.strictEqual(named('provider/attempt').length, 1);
    assert.strictEqual(named('error/provider').length, 1);
  });

  it('runs the pre-request hook before assembling, so what it appends is in the request', async () => {
    const seen: number[] = [];
    const totals = {
      path: { facts: 3, inSummary: 1 },
      command: { facts: 1, inSummary: 0 },
      error: { facts: 0, inSummary: 0 },
      request: { facts: 1, inSummary: 1 },
      tool: { facts: 2, inSummary: 0 },
    };
    const { events, model } = await run([[{ text: 'answer' }]], 'question', {
      beforeRequest: async ({ requestSeq }) => {
        seen.push(requestSeq);
        await store.append(SESSION, { kind: 'system', name: 'system/prompt', payload: { content: 'be brief' } });
        return { anchorName: 'compaction/auto', anchorEntryId: 7, totals };
      },
    });
    assert.deepStrictEqual(seen, [1]);
    assert.strictEqual(model.requests[0].messages[0].content, 'be brief');
    assert.deepStrictEqual(events[0], { type: 'compaction', turnId: 'turn-1', requestSeq: 1, anchorName: 'compaction/auto', anchorEntryId: 7, totals });
  });
});
