import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { lookedFor } from '../../../src/ingest/lookedFor';
import { MAX_SPANS } from '../../../src/ingest/otlp/otlpSpans';
import { sourcesIn } from '../../../src/ingest/sourcesUnder';
import { TapeFileError } from '../../../src/store/errors';
import { childrenOf } from '../../../src/store/forks';
import { TapeStore } from '../../../src/store/tapeStore';
import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import { calls, conversation } from './foldedSession';
import { CONVERSATION, hexSpan, messages, request, SESSION, shifted, span, T0, TRACE, TRACE2, turn } from './otlpFixtures';

describe('OpenTelemetry trace files (otlp)', function () {
  this.timeout(60_000);
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otlp-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const write = (name: string, text: string): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    return file;
  };
  const jsonl = (docs: readonly object[]): string => docs.map((d) => JSON.stringify(d)).join('\n') + '\n';
  const events = (sessionId: string, name: string) =>
    store
      .entries(sessionId)
      .filter((e) => e.kind === 'event' && e.name === name)
      .map((e) => e.payload.data as Record<string, unknown>);
  const kinds = (sessionId: string) =>
    store
      .entries(sessionId)
      .filter((e) => e.name !== 'session/start')
      .map((e) => (e.kind === 'event' ? e.name : e.kind === 'message' ? e.name : e.kind));

  it('maps a conversation with content: turn, the prompt, both requests with their tokens, the call and its result', async () => {
    const file = write('trace.json', JSON.stringify(request(turn(true))));
    const r = await ingestFile(store, file);
    assert.strictEqual(r.format, 'otlp');
    assert.deepStrictEqual(r.sessions, [SESSION]);
    assert.deepStrictEqual(r.skipped, {});
    assert.deepStrictEqual(conversation(store, SESSION), ['user: Fix the failing test', 'assistant: Reading it.', 'assistant: Fixed.']);
    assert.deepStrictEqual(calls(store, SESSION), [['call_1', 'readFile', 'ok', 'export const a = 1;']]);
    const call = store.entries(SESSION).find((e) => e.kind === 'tool_call');
    assert.deepStrictEqual(call?.payload.input, { filePath: '/src/a.ts' });
    assert.strictEqual(call?.payload.messageId, hexSpan(2), 'the call is filed under the answer that asked for it');
    assert.deepStrictEqual(kinds(SESSION), [
      'session/meta',
      'session/title',
      'turn/start',
      'message/user',
      'message/assistant',
      ATTEMPT_EVENT,
      'tool_call',
      'tool_result',
      'message/assistant',
      ATTEMPT_EVENT,
      'turn/end',
    ]);
    const attempts = events(SESSION, ATTEMPT_EVENT);
    assert.deepStrictEqual(
      attempts.map((a) => [a.model, a.status, (a.usage as Record<string, number>).inputTokens, (a.usage as Record<string, number>).outputTokens]),
      [
        ['gpt-4o-2024-08-06', 'ok', 1500, 250],
        ['gpt-4o-2024-08-06', 'ok', 2000, 100],
      ],
    );
    const usage = attempts.map((a) => a.usage as Record<string, number>);
    assert.deepStrictEqual(
      usage.map((u) => [u.cachedTokens, u.cacheCreationTokens, u.inputIncludesCached]),
      [
        [1000, 0, true],
        [0, 300, true],
      ],
    );
    assert.deepStrictEqual(events(SESSION, 'session/meta').at(-1), {
      lossy: 'read from OpenTelemetry spans: messages only as far as the spans captured content, no system prompt, tool definitions, thinking, edits or forks',
      provider: 'github',
      service: 'copilot-chat',
      agent: 'otlp',
      model: 'gpt-4o-2024-08-06',
      source: file,
      title: 'Fix the failing test',
    });
    assert.deepStrictEqual(events(SESSION, 'turn/end'), [{ turnId: hexSpan(1), outcome: 'answer' }]);
    // The source's times: the first entry at the agent span's start.
    assert.strictEqual(store.entries(SESSION)[0].createdAt, Number(T0 / 1_000_000n));
  });

  it('maps the same spans without content: no messages, the call with its id and empty result, the tokens', async () => {
    const file = write('trace.json', JSON.stringify(request(turn(false))));
    await ingestFile(store, file, 'otlp');
    assert.deepStrictEqual(conversation(store, SESSION), []);
    assert.deepStrictEqual(calls(store, SESSION), [['call_1', 'readFile', 'ok', '']]);
    assert.deepStrictEqual(store.entries(SESSION).find((e) => e.kind === 'tool_call')?.payload.input, null);
    assert.deepStrictEqual(
      events(SESSION, ATTEMPT_EVENT).map((a) => (a.usage as Record<string, number>).inputTokens),
      [1500, 2000],
    );
    assert.strictEqual(events(SESSION, 'session/meta').at(-1)?.title, undefined);
  });

  it('reads a JSONL of trace requests (a file exporter): two traces of one conversation are one session; a trace without one its own', async () => {
    const lone = span({
      trace: 'ffffffffffffffffffffffffffffffff',
      id: 99,
      name: 'chat gpt-4o-mini',
      start: 5000,
      end: 5100,
      a: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.usage.prompt_tokens': 40, 'gen_ai.usage.completion_tokens': 2 },
    });
    const lines = [request(turn(true)), request(turn(true, { trace: TRACE2, base: 10, prompt: 'Now run it' }).map((s) => shifted(s, 2000))), request([lone])];
    const file = write('spans.jsonl', jsonl(lines));
    const r = await ingestFile(store, file, 'otlp');
    const loneSession = 'otlp:trace-ffffffffffffffffffffffffffffffff';
    assert.deepStrictEqual([...r.sessions].sort(), [SESSION, loneSession].sort());
    assert.deepStrictEqual(conversation(store, SESSION), [
      'user: Fix the failing test',
      'assistant: Reading it.',
      'assistant: Fixed.',
      'user: Now run it',
      'assistant: Reading it.',
      'assistant: Fixed.',
    ]);
    assert.strictEqual(events(SESSION, 'turn/start').length, 2);
    // The older prompt/completion spellings.
    assert.deepStrictEqual(
      events(loneSession, ATTEMPT_EVENT).map((a) => [(a.usage as Record<string, number>).inputTokens, (a.usage as Record<string, number>).outputTokens]),
      [[40, 2]],
    );
    // Without --from a *.jsonl of OTLP is told by its first bytes, as the CLI and a folder walk do.
    assert.deepStrictEqual(
      sourcesIn(dir).sources.map((s) => [path.basename(s.source), s.format]),
      [['spans.jsonl', 'otlp']],
    );
  });

  it('a file read again appends nothing; a file exporter that appended a line appends only its spans; a torn last line waits', async () => {
    const first = jsonl([request(turn(true))]);
    const file = write('spans.jsonl', first);
    const r1 = await ingestFile(store, file, 'otlp');
    assert.ok(r1.appended > 0);
    assert.strictEqual((await ingestFile(store, file, 'otlp')).appended, 0);
    const second = JSON.stringify(request(turn(true, { trace: TRACE2, base: 10, prompt: 'Now run it' }).map((s) => shifted(s, 2000))));
    fs.appendFileSync(file, second.slice(0, 100));
    const torn = await ingestFile(store, file, 'otlp');
    assert.deepStrictEqual([torn.appended, torn.tornLastLine], [0, true]);
    fs.appendFileSync(file, second.slice(100) + '\n');
    const grown = await ingestFile(store, file, 'otlp');
    assert.strictEqual(grown.tornLastLine, false);
    // The second turn: start, prompt, two answers, two attempts, a call, a result, end.
    assert.strictEqual(grown.appended, 9);
    assert.strictEqual((await ingestFile(store, file, 'otlp')).appended, 0);
  });

  it('a subagent under a tool call is a child session, linked after the call that started it', async () => {
    const conv = { 'gen_ai.conversation.id': CONVERSATION };
    const spans = [
      span({
        id: 1,
        name: 'invoke_agent copilot',
        start: 0,
        end: 3000,
        a: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'copilot', ...conv },
      }),
      span({ id: 2, parent: 1, name: 'chat gpt-4o', start: 10, end: 100, a: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', ...conv } }),
      span({
        id: 3,
        parent: 1,
        name: 'execute_tool runSubagent',
        start: 110,
        end: 2000,
        a: {
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'runSubagent',
          'gen_ai.tool.call.id': 'call_sub',
          'gen_ai.tool.call.result': 'Found 3 uses.',
        },
      }),
      span({
        id: 4,
        parent: 3,
        name: 'invoke_agent Explore',
        start: 120,
        end: 1900,
        a: {
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.name': 'Explore',
          ...conv,
          'gen_ai.input.messages': messages(['user', 'Find the uses of a']),
        },
      }),
      span({
        id: 5,
        parent: 4,
        name: 'chat gpt-4o-mini',
        start: 130,
        end: 400,
        a: {
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': 'gpt-4o-mini',
          'gen_ai.usage.input_tokens': 300,
          'gen_ai.usage.output_tokens': 30,
          // The conventions' current name; the first test's spans carry the older cache_creation.
          'gen_ai.usage.cache_write.input_tokens': 40,
          ...conv,
        },
      }),
      span({
        id: 6,
        parent: 4,
        name: 'execute_tool searchFiles',
        start: 410,
        end: 500,
        a: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'searchFiles' },
      }),
    ];
    const r = await ingestFile(store, write('sub.json', JSON.stringify(request(spans))), 'otlp');
    const child = `${SESSION}/agent-${hexSpan(4)}`;
    assert.deepStrictEqual([...r.sessions].sort(), [SESSION, child].sort());
    assert.deepStrictEqual(
      childrenOf(store, SESSION).map((c) => c.sessionId),
      [child],
    );
    assert.deepStrictEqual(kinds(SESSION), [
      'session/meta',
      'turn/start',
      'message/assistant',
      ATTEMPT_EVENT,
      'tool_call',
      'subagent/linked',
      'tool_result',
      'turn/end',
    ]);
    const link = events(SESSION, 'subagent/linked')[0];
    assert.deepStrictEqual([link.childSessionId, link.toolCallId, link.agentName], [child, 'call_sub', 'Explore']);
    assert.deepStrictEqual(conversation(store, child), ['user: Find the uses of a']);
    assert.deepStrictEqual(calls(store, child), [[hexSpan(6), 'searchFiles', 'ok', '']]);
    const meta = events(child, 'session/meta').at(-1);
    assert.deepStrictEqual([meta?.parentSessionId, meta?.model, meta?.title], [SESSION, 'gpt-4o-mini', 'Explore']);
    assert.deepStrictEqual(
      events(child, ATTEMPT_EVENT).map((a) => [(a.usage as Record<string, number>).inputTokens, (a.usage as Record<string, number>).cacheCreationTokens]),
      [[300, 40]],
    );
  });

  it('errors: a failed request is an attempt with status error, a failed tool a result with status error and its message', async () => {
    const conv = { 'gen_ai.conversation.id': CONVERSATION };
    const spans = [
      span({ id: 1, name: 'invoke_agent copilot', start: 0, end: 900, error: 'rate limited', a: { 'gen_ai.operation.name': 'invoke_agent', ...conv } }),
      span({ id: 2, parent: 1, name: 'chat gpt-4o', start: 10, end: 100, a: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', ...conv } }),
      span({
        id: 3,
        parent: 1,
        name: 'execute_tool runCommand',
        start: 110,
        end: 200,
        error: 'exit code 1',
        a: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'runCommand', 'gen_ai.tool.call.id': 'c9' },
      }),
      span({
        id: 4,
        parent: 1,
        name: 'chat gpt-4o',
        start: 210,
        end: 300,
        error: '',
        a: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'error.type': 'RateLimitError', ...conv },
      }),
    ];
    await ingestFile(store, write('err.json', JSON.stringify(request(spans))), 'otlp');
    assert.deepStrictEqual(calls(store, SESSION), [['c9', 'runCommand', 'error', 'exit code 1']]);
    assert.deepStrictEqual(
      events(SESSION, ATTEMPT_EVENT).map((a) => [a.status, a.error]),
      [
        ['ok', undefined],
        ['error', 'RateLimitError'],
      ],
    );
    assert.deepStrictEqual(events(SESSION, 'turn/end'), [{ turnId: hexSpan(1), outcome: 'error', error: 'rate limited' }]);
  });

  it('hostile files: ids not hex, wrong types, cycles and other signals are counted; a file that is no trace request is refused by name and adds nothing', async () => {
    const good = span({ id: 1, name: 'chat gpt-4o', start: 0, end: 10, a: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': CONVERSATION } });
    const spans = [
      good,
      { ...good, spanId: 'zzzzzzzzzzzzzzzz' },
      { ...good, spanId: '0000000000000000' },
      { ...good, spanId: hexSpan(2), traceId: TRACE.slice(2) },
      { ...good, spanId: hexSpan(3), startTimeUnixNano: -5 },
      { ...good, spanId: hexSpan(4), attributes: { 'gen_ai.operation.name': 'chat' } },
      { ...good, spanId: hexSpan(5), attributes: [{ key: 'x', value: { intValue: 'many' } }] },
      good,
      // A parent cycle: each is the other's parent.
      span({ id: 7, parent: 8, name: 'execute_tool a', start: 20, end: 30, a: { 'gen_ai.operation.name': 'execute_tool' } }),
      span({ id: 8, parent: 7, name: 'invoke_agent b', start: 21, end: 31, a: { 'gen_ai.operation.name': 'invoke_agent' } }),
      span({ id: 9, name: 'GET /api', start: 40, end: 50, a: { 'http.request.method': 'GET' } }),
      span({ id: 10, name: 'embeddings x', start: 40, end: 50, a: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.conversation.id': '../../etc' } }),
      // A protobuf library's JSON: base64 ids, the kind and status by name.
      {
        ...span({ id: 11, name: 'chat gpt-4o', start: 60, end: 70, a: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': 'b64' } }),
        traceId: Buffer.from(TRACE, 'hex').toString('base64'),
        spanId: Buffer.from(hexSpan(11), 'hex').toString('base64'),
        kind: 'SPAN_KIND_CLIENT',
        status: { code: 'STATUS_CODE_ERROR', message: 'boom' },
      },
    ];
    const file = write('hostile.jsonl', jsonl([request(spans), { resourceLogs: [] }, { resourceSpans: 'no' }, [1, 2]]));
    const r = await ingestFile(store, file, 'otlp');
    assert.deepStrictEqual(r.skipped, {
      'invalid/span': 6,
      'span/duplicate': 1,
      'span/other': 1,
      'span/embeddings': 1,
      'invalid/gen_ai.conversation.id': 1,
      'document/resourceLogs': 1,
      'invalid/document': 2,
    });
    assert.strictEqual(events(SESSION, ATTEMPT_EVENT).length, 1);
    assert.deepStrictEqual(events('otlp:b64', ATTEMPT_EVENT), [{ model: 'unknown', status: 'error', error: 'boom' }]);
    // The cycle is read as a root of the trace's conversation: its tool call and the agent's turn, no subagent.
    assert.strictEqual(calls(store, SESSION).length, 1);

    for (const [name, text] of [
      ['not-otlp.json', JSON.stringify({ traces: [] })],
      ['deep.json', `{"resourceSpans":${'['.repeat(100_000)}`],
      ['garbage.jsonl', 'not json\nnor this\n'],
    ]) {
      const before = store.sessions().length;
      await assert.rejects(
        ingestFile(store, write(name, text), 'otlp'),
        (e: Error) => e instanceof TapeFileError && e.message.includes(name) && /not OTLP\/JSON|nests/.test(e.message),
      );
      assert.strictEqual(store.sessions().length, before, `${name} adds nothing`);
    }
  });

  it(`a file of a million spans maps the first ${MAX_SPANS} and counts the rest, quickly when they are no spans`, async () => {
    const one = JSON.stringify(
      span({ id: 1, name: 'chat gpt-4o', start: 0, end: 1, a: { 'gen_ai.operation.name': 'chat', 'gen_ai.conversation.id': CONVERSATION } }),
    );
    const file = write('million.json', `{"resourceSpans":[{"scopeSpans":[{"spans":[${one},${Array(999_999).fill('{}').join(',')}]}]}]}`);
    const r = await ingestFile(store, file, 'otlp');
    assert.deepStrictEqual(r.skipped, { 'invalid/span': MAX_SPANS - 1, 'span/over-limit': 1_000_000 - MAX_SPANS });
    assert.deepStrictEqual(r.sessions, [SESSION]);
    assert.strictEqual(events(SESSION, ATTEMPT_EVENT).length, 1);
  });

  it('says what it looks for when a folder holds none', () => {
    assert.deepStrictEqual(lookedFor('otlp'), [
      'OpenTelemetry (OTLP/JSON): *.json or *.jsonl files of OTLP/JSON trace requests ({"resourceSpans": [...]}, whole or one a line) with GenAI spans: gen_ai.operation.name (or the span name\'s first word) invoke_agent, chat, text_completion, generate_content or execute_tool (Gemini CLI\'s agent_call, llm_call, tool_call)',
    ]);
  });
});
