import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { ownerTranscriptOf } from '../../../src/ingest/transcriptFiles';
import { TapeStore } from '../../../src/store/tapeStore';
import { FoldCache } from '../../../src/tape/foldCache';
import { CC_SESSION, ccUser, jsonl } from './fixtures';

/** The records Claude Code 2.1.3xx writes beside the conversation, each as small as it can be. */
const sid = `claude-code:${CC_SESSION}`;
const at = (i: number): string => new Date(Date.UTC(2026, 11, 1, 0, 0, i)).toISOString();
const answer = (uuid: string, i: number, id: string, block: object, extra: object = {}) => ({
  type: 'assistant',
  uuid,
  sessionId: CC_SESSION,
  timestamp: at(i),
  message: {
    id,
    role: 'assistant',
    model: 'claude-opus-5-5',
    content: [block],
    usage: {
      input_tokens: 3,
      cache_creation_input_tokens: 40,
      cache_read_input_tokens: 500,
      output_tokens: 60,
      output_tokens_details: { thinking_tokens: 25 },
    },
  },
  ...extra,
});
const prompt = (uuid: string, i: number, text: string) => ccUser(uuid, i, text);
const toolResult = (uuid: string, i: number, id: string, content: unknown, extra: object = {}) =>
  ccUser(uuid, i, [{ type: 'tool_result', tool_use_id: id, content }], extra);

describe('Claude Code 2.1.3xx records', function () {
  this.timeout(20_000);
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-cc-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (records: object[]): string => {
    const file = path.join(dir, `${CC_SESSION}.jsonl`);
    fs.writeFileSync(file, jsonl(records));
    return file;
  };
  const metaTitles = () => store.entries(sid).flatMap((e) => (e.name === 'session/meta' ? [(e.payload.data as { title?: string }).title] : []));

  it('recognizes a file that opens with records of the new kinds, and maps none of them into a message', async () => {
    const s = { sessionId: CC_SESSION };
    const report = await ingestFile(
      store,
      write([
        { type: 'agent-name', agentName: 'n', ...s },
        { type: 'permission-mode', permissionMode: 'bypassPermissions', ...s },
        { type: 'mode', mode: 'normal', ...s },
        { type: 'atis-latch', atis: '', ...s },
        { type: 'attachment', uuid: 'x1', attachment: { type: 'date', date: '2026-12-01' }, ...s },
        { type: 'api-request-shape', shapeHash: 'h', shape: { system: [{ type: 'text', text: 'You are…' }] }, ...s },
        { type: 'api-request-blob', hash: 'h2', message: { role: 'user', content: [{ type: 'text', text: 'a request, not a prompt' }] }, ...s },
        { type: 'api-request', id: 'r1', params: { model: 'm' }, ...s },
        { type: 'tools-used', tools: ['Read'], ...s },
        { type: 'last-prompt', lastPrompt: 'hello', ...s },
        { type: 'cost-state', totalCostUSD: 0.1, ...s },
        { type: 'queue-operation', operation: 'enqueue', content: 'hello', ...s },
        prompt('u1', 1, 'hello'),
        answer('a1', 2, 'msg_1', { type: 'text', text: 'hi' }),
      ]),
    );
    assert.strictEqual(report.format, 'claude-code');
    assert.deepStrictEqual(
      store.entries(sid).flatMap((e) => (e.kind === 'message' ? [e.payload.content] : [])),
      ['hello', 'hi'],
    );
    for (const type of [
      'agent-name',
      'permission-mode',
      'mode',
      'atis-latch',
      'attachment',
      'api-request-shape',
      'api-request-blob',
      'api-request',
      'tools-used',
      'last-prompt',
      'cost-state',
      'queue-operation',
    ])
      assert.strictEqual(report.skipped[type], 1, type);
  });

  it('titles the session with its ai-title, a custom-title over it, the first prompt only without either; a pr-link as an event', async () => {
    const s = { sessionId: CC_SESSION };
    await ingestFile(store, write([prompt('u1', 1, 'Fix the bug'), answer('a1', 2, 'msg_1', { type: 'text', text: 'ok' })]));
    assert.deepStrictEqual(metaTitles(), ['Fix the bug']);
    fs.appendFileSync(path.join(dir, `${CC_SESSION}.jsonl`), jsonl([{ type: 'ai-title', aiTitle: 'Bug fix in parser', ...s }]));
    await ingestFile(store, path.join(dir, `${CC_SESSION}.jsonl`));
    assert.strictEqual(metaTitles().at(-1), 'Bug fix in parser');
    fs.appendFileSync(
      path.join(dir, `${CC_SESSION}.jsonl`),
      jsonl([
        { type: 'custom-title', customTitle: 'Parser', ...s },
        { type: 'ai-title', aiTitle: 'Later AI title', ...s },
        { type: 'pr-link', prNumber: 7, prUrl: 'https://example.invalid/pr/7', prRepository: 'o/r', timestamp: at(9), ...s },
      ]),
    );
    await ingestFile(store, path.join(dir, `${CC_SESSION}.jsonl`));
    assert.strictEqual(metaTitles().at(-1), 'Parser', 'the name the person gave wins');
    const pr = store.entries(sid).find((e) => e.name === 'claude-code/pr-link');
    assert.strictEqual((pr?.payload.data as { prUrl?: string }).prUrl, 'https://example.invalid/pr/7');
  });

  it('one answer and one attempt per API message split over lines; input counts the cache, output the thinking; the figures kept as reported', async () => {
    const report = await ingestFile(
      store,
      write([
        prompt('u1', 1, 'go'),
        answer('a1', 2, 'msg_1', { type: 'thinking', thinking: '', signature: 'sig' }),
        answer('a2', 3, 'msg_1', { type: 'thinking', thinking: 'Plan.', signature: 'sig2' }),
        answer('a3', 4, 'msg_1', { type: 'text', text: 'Done.' }),
      ]),
    );
    const entries = store.entries(sid);
    assert.strictEqual(entries.filter((e) => e.name === 'message/assistant').length, 1);
    const attempts = entries.filter((e) => e.name === 'provider/attempt');
    assert.strictEqual(attempts.length, 1);
    const { usage } = attempts[0].payload.data as { usage: Record<string, unknown> };
    assert.strictEqual(usage.inputTokens, 543);
    assert.strictEqual(usage.cachedTokens, 500);
    assert.strictEqual(usage.cacheCreationTokens, 40);
    assert.strictEqual(usage.outputTokens, 60);
    assert.strictEqual(usage.reasoningTokens, 25);
    assert.deepStrictEqual(usage.reported, { input: 3, output: 60, cacheRead: 500, cacheWrite: 40, reasoning: 25 });
    // A thinking block that is only a signature (Claude Code 2.1.3xx omits the text) is counted, not an event.
    assert.deepStrictEqual(
      entries.filter((e) => e.name === 'claude-code/thinking').map((e) => (e.payload.data as { block: { thinking: string } }).block.thinking),
      ['Plan.'],
    );
    assert.strictEqual(report.skipped['assistant/thinking_empty'], 1);
  });

  for (const tool of ['Task', 'Agent'])
    it(`links a subagent after the ${tool} call its .meta.json names, when its result names no agent (a background agent)`, async () => {
      const file = write([
        prompt('u1', 1, 'delegate'),
        answer('a1', 2, 'msg_1', { type: 'tool_use', id: 'toolu_early', name: 'Read', input: {} }),
        toolResult('u2', 3, 'toolu_early', 'x'),
        answer('a2', 4, 'msg_2', { type: 'tool_use', id: 'toolu_spawn', name: tool, input: { prompt: 'look' } }),
        toolResult('u3', 5, 'toolu_spawn', 'Async agent launched successfully.', { toolUseResult: { isAsync: true, status: 'async_launched' } }),
        answer('a3', 6, 'msg_3', { type: 'text', text: 'It runs.' }),
      ]);
      const sub = path.join(dir, CC_SESSION, 'subagents');
      fs.mkdirSync(sub, { recursive: true });
      fs.writeFileSync(path.join(sub, 'agent-abc.jsonl'), jsonl([ccUser('x1', 7, 'look', { isSidechain: true, agentId: 'abc' })]));
      fs.writeFileSync(path.join(sub, 'agent-abc.meta.json'), JSON.stringify({ agentType: 'general-purpose', toolUseId: 'toolu_spawn' }));
      await ingestFile(store, file);
      const entries = store.entries(sid);
      const link = entries.find((e) => e.name === 'subagent/linked');
      assert.strictEqual((link?.payload.data as { toolCallId?: string }).toolCallId, 'toolu_spawn');
      const call = entries.find((e) => e.kind === 'tool_call' && e.payload.toolCallId === 'toolu_spawn');
      assert.strictEqual(link?.entryId, (call?.entryId ?? 0) + 1, 'right after its call');
    });

  it('reads a workflow subagent under subagents/workflows/<run>/ as a linked child session', async () => {
    const file = write([prompt('u1', 1, 'run the workflow'), answer('a1', 2, 'msg_1', { type: 'tool_use', id: 'toolu_wf', name: 'Workflow', input: {} })]);
    const run = path.join(dir, CC_SESSION, 'subagents', 'workflows', 'wf1');
    fs.mkdirSync(run, { recursive: true });
    fs.writeFileSync(path.join(run, 'agent-w1.jsonl'), jsonl([ccUser('x1', 3, 'step one', { isSidechain: true, agentId: 'w1' })]));
    fs.writeFileSync(path.join(run, 'agent-w1.meta.json'), JSON.stringify({ toolUseId: 'toolu_wf' }));
    const report = await ingestFile(store, file);
    const child = `${sid}/agent-w1`;
    assert.ok(report.sessions.includes(child), `${report.sessions.join(', ')} include the workflow's agent`);
    assert.deepStrictEqual(
      store.entries(child).flatMap((e) => (e.name === 'message/user' ? [e.payload.content] : [])),
      ['step one'],
    );
    const link = store.entries(sid).find((e) => e.name === 'subagent/linked');
    assert.strictEqual((link?.payload.data as { toolCallId?: string }).toolCallId, 'toolu_wf');
    // A change to it is a change to its session (following, the CLI given the file alone).
    assert.strictEqual(ownerTranscriptOf(path.join(run, 'agent-w1.jsonl')), file);
  });

  describe('a large output kept in tool-results/', () => {
    const notice = (saved: string) =>
      `<persisted-output>\nOutput too large (2.3KB). Full output saved to: ${saved}\n\nPreview (first 2KB):\nline 1\n...\n</persisted-output>`;
    const session = (saved: string) =>
      write([
        prompt('u1', 1, 'run it'),
        answer('a1', 2, 'msg_1', { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'seq 1 600' } }),
        toolResult('u2', 3, 'toolu_1', notice(saved)),
      ]);
    const output = () => store.entries(sid).find((e) => e.kind === 'tool_result')?.payload.output;

    it('is the result, read from the session folder whatever folder the notice names', async () => {
      const results = path.join(dir, CC_SESSION, 'tool-results');
      fs.mkdirSync(results, { recursive: true });
      fs.writeFileSync(path.join(results, 'b1.txt'), 'line 1\nline 2\n');
      await ingestFile(store, session(`/home/someone/.claude/projects/p/${CC_SESSION}/tool-results/b1.txt`));
      assert.strictEqual(output(), 'line 1\nline 2\n');
    });

    it('stays the preview when the notice names a file elsewhere, or a link leads out of the folder', async () => {
      const results = path.join(dir, CC_SESSION, 'tool-results');
      fs.mkdirSync(results, { recursive: true });
      fs.writeFileSync(path.join(dir, 'secret.txt'), 'secret');
      fs.symlinkSync(path.join(dir, 'secret.txt'), path.join(results, 'b2.txt'));
      const report = await ingestFile(store, session(`${results}/../../secret.txt`));
      assert.match(String(output()), /^<persisted-output>/);
      assert.strictEqual(report.skipped['tool_result/persisted_output_elsewhere'], 1);
      await store.close();
      store = await TapeStore.inMemory();
      fs.rmSync(path.join(dir, `${CC_SESSION}.jsonl`));
      const linked = await ingestFile(store, session(`/x/${CC_SESSION}/tool-results/b2.txt`));
      assert.match(String(output()), /^<persisted-output>/);
      assert.strictEqual(linked.skipped['tool_result/persisted_output_outside'], 1);
    });
  });

  it('pairs an advisor call with its result (server tool blocks in the answer itself)', async () => {
    await ingestFile(
      store,
      write([
        prompt('u1', 1, 'ask the advisor'),
        answer('a1', 2, 'msg_1', { type: 'server_tool_use', id: 'srvtoolu_1', name: 'advisor', input: { question: 'which?' } }),
        answer('a2', 3, 'msg_1', { type: 'advisor_tool_result', tool_use_id: 'srvtoolu_1', content: { type: 'advisor_result', text: 'the first' } }),
        answer('a3', 4, 'msg_1', { type: 'text', text: 'The first.' }),
      ]),
    );
    const view = new FoldCache(store).view(sid, { includePending: false });
    assert.deepStrictEqual(
      view.toolCalls.map((c) => [c.toolCallId, c.name]),
      [['srvtoolu_1', 'advisor']],
    );
    const result = view.toolFacts.get(view.toolCalls[0].messageId)?.results.get('srvtoolu_1');
    assert.ok(result, 'the advisor call has its result');
    assert.deepStrictEqual(store.requireEntry(sid, result.entryId).payload.output, { type: 'advisor_result', text: 'the first' });
  });
});
