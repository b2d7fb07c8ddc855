import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { clineDiscovery } from '../../../src/ingest/cline/discovery';
import { sourceOfPath } from '../../../src/ingest/detect';
import { ingestFile } from '../../../src/ingest/ingest';
import { sourcesUnder } from '../../../src/ingest/sourcesUnder';
import { TapeFileError } from '../../../src/store/errors';
import { childrenOf, parentOf } from '../../../src/store/forks';
import { readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { FoldCache } from '../../../src/tape/foldCache';
import {
  CLINE_ID,
  CLINE_TASK,
  clineApiHistory,
  clineMetadata,
  clineUiMessages,
  CWD,
  KILO_ID,
  ROO_CHILD,
  ROO_ID,
  ROO_PARENT,
  ROO_TASK,
  rooChildFiles,
  rooParentFiles,
  rooXmlApiHistory,
  rooXmlUiMessages,
  writeClineTask,
  writeRooXmlTask,
  writeTask,
} from './clineFixtures';
import { conversation, usageOf } from './foldedSession';

/** The conversation a person reads: user prompts and assistant texts, in order. */
/** Every tool call of the folded session with its result, and what they are. */
function pairs(store: TapeStore, sessionId: string): [string, string, unknown][] {
  const view = new FoldCache(store).view(sessionId, { includePending: false });
  return view.toolCalls.map((call) => {
    const result = view.toolFacts.get(call.messageId)?.results.get(call.toolCallId);
    assert.ok(result, `call ${call.toolCallId} (${call.name}) has its result`);
    const r = store.requireEntry(sessionId, result.entryId).payload;
    return [call.name, String(r.status), r.output];
  });
}

const events = (store: TapeStore, sessionId: string, name: string): Entry[] => store.entries(sessionId).filter((e) => e.kind === 'event' && e.name === name);
const dataOf = (e: Entry | undefined): Record<string, unknown> => (e?.payload.data ?? {}) as Record<string, unknown>;

/** The figures of a chat's api_req_started messages, summed as the extensions sum them for a task. */
function chatTotals(ui: object[], agent: 'cline' | 'roo' = 'cline') {
  const figures = (ui as { say?: string; text?: string }[])
    .filter((u) => u.say === 'api_req_started')
    .map((u) => JSON.parse(u.text ?? '{}') as { tokensIn: number; tokensOut: number; cacheReads: number; cacheWrites: number });
  const sum = (f: (x: (typeof figures)[number]) => number) => figures.reduce((a, x) => a + f(x), 0);
  // Cline's tokensIn leaves the cache out (Anthropic's input_tokens), Roo Code's counts it; the tape's input counts it.
  return {
    attempts: figures.length,
    inputTokens: sum((x) => x.tokensIn + (agent === 'cline' ? x.cacheReads + x.cacheWrites : 0)),
    outputTokens: sum((x) => x.tokensOut),
    cachedTokens: sum((x) => x.cacheReads),
  };
}

describe('Cline, Roo Code and Kilo Code tasks', function () {
  this.timeout(20_000);
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-cline-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('a task folder', () => {
    const session = `cline:${CLINE_TASK}`;

    it('maps a Cline task with native tool calls: conversation, paired calls, thinking, checkpoint, meta, skipped types', async () => {
      const task = writeClineTask(dir);
      const r = await ingestFile(store, task);
      assert.strictEqual(r.format, 'cline');
      assert.deepStrictEqual(r.sessions, [session]);
      assert.strictEqual(r.appended + 1, store.entries(session).length, 'all but the session/start the ingest adds');
      assert.strictEqual(r.skipped['assistant/mystery_block'], 1);
      assert.strictEqual(r.skipped['ui/say/mystery_say'], 1);
      // The chat's copies of the conversation are counted, not written twice.
      assert.strictEqual(r.skipped['ui/say/text'], 3);

      assert.deepStrictEqual(conversation(store, session), [
        'user: Fix the failing test',
        "assistant: I'll read the test.",
        'assistant: Running it.',
        'assistant: Fixed the test.',
        'user: Now add docs',
        'assistant: Docs added.\n\nDone with docs.',
      ]);
      assert.deepStrictEqual(pairs(store, session), [
        ['read_file', 'ok', 'test body'],
        ['execute_command', 'error', 'exit 1'],
      ]);
      const calls = store.entries(session).filter((e) => e.kind === 'tool_call');
      assert.deepStrictEqual(
        calls.map((e) => [e.payload.toolCallId, e.payload.input]),
        [
          ['toolu_1', { path: 'test/a.test.ts' }],
          ['toolu_2', { command: 'npm test', requires_approval: false }],
        ],
      );
      // The completion the person answered is the assistant's words, its result the person's; kept whole as events.
      assert.deepStrictEqual(
        events(store, session, 'cline/tool_use').map((e) => dataOf(e).input),
        [{ result: 'Fixed the test.' }, { result: 'Done with docs.' }],
      );
      assert.match(String(dataOf(events(store, session, 'cline/tool_result')[0]).output), /<feedback>\nNow add docs\n<\/feedback>/);
      assert.deepStrictEqual(dataOf(events(store, session, 'cline/thinking')[0]).block, {
        type: 'thinking',
        thinking: 'Look at the test first.',
        signature: 'sig',
      });
      assert.deepStrictEqual(
        events(store, session, 'cline/checkpoint').map((e) => [dataOf(e).commit, e.createdAt]),
        [['1f0e2d3c4b5a69788796a5b4c3d2e1f001234567', Number(CLINE_TASK) + 3050]],
      );
      assert.strictEqual(events(store, session, 'cline/environment_details').length, 4, 'one per user message');

      const meta = events(store, session, 'session/meta');
      assert.strictEqual(meta.length, 1);
      assert.deepStrictEqual(dataOf(meta[0]), {
        taskId: CLINE_TASK,
        agent: 'cline',
        source: task,
        model: 'claude-sonnet-4-5',
        cwd: CWD,
        title: 'Fix the failing test',
      });
      assert.strictEqual(meta[0].createdAt, Number(CLINE_TASK), 'at the first record');
      const entries = store.entries(session);
      assert.strictEqual(entries[0].name, 'session/start');
      assert.strictEqual(entries[0].createdAt, Number(CLINE_TASK));
    });

    // A real task of the Cline CLI 2.14.0, recorded here (test/fixtures/cline/README.md): two calls in one message, a call whose tool failed, a completion.
    const RECORDED = path.resolve(__dirname, '../../../../test/fixtures/cline/1796539190819');
    const recordedPairs = [
      ['read_file', 'ok', '1 | hello from the file\n\n(File has 1 lines total.)'],
      ['list_files', 'ok', 'hello.txt'],
      [
        'read_file',
        'error',
        'The tool execution failed with the following error:\n<error>\nError reading file: File not found: /tmp/clinecli/work/missing.txt\n</error>',
      ],
    ];

    it("pairs native calls with the `[tool for '…'] Result:` text blocks Cline answers them with, in order (a real Cline CLI 2.14.0 task)", async () => {
      const task = writeTask(dir, CLINE_ID, '1796539190819', {
        api: JSON.parse(fs.readFileSync(path.join(RECORDED, 'api_conversation_history.json'), 'utf8')) as object[],
        ui: JSON.parse(fs.readFileSync(path.join(RECORDED, 'ui_messages.json'), 'utf8')) as object[],
      });
      const r = await ingestFile(store, task);
      const id = 'cline:1796539190819';
      assert.deepStrictEqual(pairs(store, id), recordedPairs);
      assert.deepStrictEqual(
        store
          .entries(id)
          .filter((e) => e.kind === 'tool_call')
          .map((e) => [e.payload.toolCallId, e.payload.input]),
        [
          ['call_1_0', { path: 'hello.txt' }],
          ['call_1_1', { path: '.', recursive: false }],
          ['call_2_0', { path: 'missing.txt' }],
        ],
      );
      assert.deepStrictEqual(r.skipped['user/xml_result_without_call'], undefined);
      // Cline's todo-list instructions to the model are its own words, kept apart: not the person's, not a result.
      assert.deepStrictEqual(conversation(store, id), [
        'user: Read hello.txt and list the folder',
        'assistant: Reading the file and listing the folder.',
        'assistant: Reading a file that is not there.',
        'assistant: The file says hello.',
      ]);
      assert.strictEqual(events(store, id, 'cline/focus_chain').length, 3, 'one per user message');
    });

    it("reads a tool_result block whose content starts with the call's `[tool for '…'] Result:` header, as Cline writes one when it keeps the call's id", async () => {
      // The recorded task with each result block turned into the tool_result ToolResultUtils writes then: the same text, the call's id.
      const api = JSON.parse(fs.readFileSync(path.join(RECORDED, 'api_conversation_history.json'), 'utf8')) as {
        role: string;
        content: { type: string; text?: string; id?: string }[];
      }[];
      api.forEach((m, i) => {
        const ids = (api[i - 1]?.content ?? []).filter((b) => b.type === 'tool_use').map((b) => b.id);
        if (m.role === 'user')
          m.content = m.content.map((b) =>
            b.text?.startsWith('[') ? { type: 'tool_result', tool_use_id: ids.shift(), content: b.text } : b,
          ) as typeof m.content;
      });
      await ingestFile(store, writeTask(dir, CLINE_ID, '1796539190819', { api }));
      assert.deepStrictEqual(pairs(store, 'cline:1796539190819'), recordedPairs, 'the header left out; an error by its text');
    });

    it('one provider/attempt per request with the chat figures, at the request, with its answer and model', async () => {
      await ingestFile(store, writeClineTask(dir));
      assert.deepStrictEqual(usageOf(store, session), chatTotals(clineUiMessages()));
      assert.deepStrictEqual(usageOf(store, session), { attempts: 4, inputTokens: 845, outputTokens: 100, cachedTokens: 180 });
      const attempts = events(store, session, 'provider/attempt');
      assert.deepStrictEqual(dataOf(attempts[0]), {
        messageId: `assistant-${Number(CLINE_TASK) + 3000}`,
        model: 'claude-sonnet-4-5',
        usage: {
          inputTokens: 160,
          outputTokens: 20,
          cachedTokens: 50,
          cacheCreationTokens: 10,
          reasoningTokens: 0,
          inputIncludesCached: true,
          reported: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 },
        },
        cost: 0.01,
      });
      assert.deepStrictEqual(
        attempts.map((a) => a.createdAt - Number(CLINE_TASK)),
        [500, 3200, 5200, 9100],
      );
    });

    it('re-ingest appends nothing; a grown task appends exactly its new messages and requests', async () => {
      const api = clineApiHistory();
      const ui = clineUiMessages();
      // The task as it was written mid-way: the second request answered, its result not yet in.
      const task = writeTask(dir, CLINE_ID, CLINE_TASK, { api: api.slice(0, 4), ui: ui.slice(0, 9), metadata: clineMetadata() });
      const first = await ingestFile(store, task);
      assert.strictEqual((await ingestFile(store, task)).appended, 0);
      assert.deepStrictEqual(conversation(store, session), ['user: Fix the failing test', "assistant: I'll read the test.", 'assistant: Running it.']);

      writeTask(dir, CLINE_ID, CLINE_TASK, { api, ui });
      const grown = await ingestFile(store, task);
      assert.strictEqual((await ingestFile(store, task)).appended, 0);

      const fresh = await TapeStore.inMemory();
      try {
        const whole = await ingestFile(fresh, task);
        assert.strictEqual(first.appended + grown.appended, whole.appended);
        const keys = (s: TapeStore) => s.entries(session).map((e) => e.provenanceKey);
        assert.deepStrictEqual(keys(store).sort(), keys(fresh).sort());
        assert.deepStrictEqual(conversation(store, session), conversation(fresh, session));
        assert.deepStrictEqual(usageOf(store, session), chatTotals(ui));
      } finally {
        await fresh.close();
      }
    });

    it('a request still streaming is left for a later run, which adds it once with its final figures', async () => {
      const ui = clineUiMessages();
      const streaming = [...ui.slice(0, 7)];
      // The second request's message as Cline writes it while the response streams: figures so far.
      streaming[6] = { ...(streaming[6] as object), text: JSON.stringify({ request: '…', tokensIn: 200, tokensOut: 3 }) };
      const task = writeTask(dir, CLINE_ID, CLINE_TASK, { api: clineApiHistory().slice(0, 3), ui: streaming });
      await ingestFile(store, task);
      assert.deepStrictEqual(usageOf(store, session), { attempts: 1, inputTokens: 160, outputTokens: 20, cachedTokens: 50 });
      writeTask(dir, CLINE_ID, CLINE_TASK, { api: clineApiHistory().slice(0, 4), ui: ui.slice(0, 8) });
      await ingestFile(store, task);
      assert.deepStrictEqual(usageOf(store, session), { attempts: 2, inputTokens: 420, outputTokens: 50, cachedTokens: 110 });
    });

    it('maps a Roo Code task in the XML tool format: calls in the text paired with their results, thinking kept out', async () => {
      const task = writeRooXmlTask(dir);
      const r = await ingestFile(store, task);
      const session = `roo:${ROO_TASK}`;
      assert.deepStrictEqual([r.format, r.sessions], ['roo', [session]]);
      assert.deepStrictEqual(conversation(store, session), [
        'user: List the files',
        'assistant: I will list the files.',
        'assistant: Reading a.ts.',
        'assistant: There are two files.',
      ]);
      assert.deepStrictEqual(pairs(store, session), [
        ['list_files', 'ok', 'a.ts\nb.ts'],
        ['read_file', 'ok', '<file><path>a.ts</path>\n<content lines="1-1">\n1 | export {}\n</content>\n</file>'],
        [
          'write_to_file',
          'error',
          "Tool [write_to_file] was not executed because a tool has already been used in this message. Only one tool may be used per message. You must assess the first tool's result before proceeding to use the next tool.",
        ],
      ]);
      const inputs = store
        .entries(session)
        .filter((e) => e.kind === 'tool_call')
        .map((e) => e.payload.input);
      assert.deepStrictEqual(inputs, [
        { path: '.', recursive: 'false' },
        { path: 'a.ts' },
        { path: 'c.ts', content: 'export const c = "<content>";', line_count: '1' },
      ]);
      assert.deepStrictEqual(
        events(store, session, 'roo/thinking').map((e) => dataOf(e).text),
        ['I should list the folder first.'],
      );
      assert.deepStrictEqual(usageOf(store, session), chatTotals(rooXmlUiMessages(), 'roo'));
      assert.deepStrictEqual(dataOf(events(store, session, 'roo/checkpoint')[0]).commit, '2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b');
      const meta = dataOf(events(store, session, 'session/meta')[0]);
      assert.deepStrictEqual([meta.agent, meta.model, meta.cwd, meta.title], ['roo', 'claude-3-7-sonnet-20250219', CWD, 'List the files']);
      // Roo Code's tokensIn counts the cache inside it (Cline's does not): the attempts say so.
      const usages = events(store, session, 'provider/attempt').map((e) => (dataOf(e).usage as { inputIncludesCached?: unknown }).inputIncludesCached);
      assert.ok(usages.length > 0 && usages.every((u) => u === true), String(usages));
    });

    it("a Kilo Code task is Kilo Code's, with the same files", async () => {
      const task = writeRooXmlTask(dir, KILO_ID);
      const r = await ingestFile(store, task);
      assert.deepStrictEqual([r.format, r.sessions], ['kilo', [`kilo:${ROO_TASK}`]]);
      assert.strictEqual(conversation(store, `kilo:${ROO_TASK}`).length, 4);
    });

    it('a task with only its chat reads its conversation, command and figures from the chat, once the chat is not being written', async () => {
      const task = writeTask(dir, CLINE_ID, CLINE_TASK, { ui: clineUiMessages() });
      const chat = path.join(task, 'ui_messages.json');
      // Being written, the chat is ahead of the API history the conversation will be read from.
      const r = await ingestFile(store, chat);
      assert.deepStrictEqual(r.sessions, [session]);
      assert.deepStrictEqual(conversation(store, session), []);
      assert.deepStrictEqual(usageOf(store, session), chatTotals(clineUiMessages()));
      const aWhileAgo = new Date(Date.now() - 5 * 60_000);
      fs.utimesSync(chat, aWhileAgo, aWhileAgo);
      await ingestFile(store, chat);
      assert.deepStrictEqual(conversation(store, session), [
        'user: Fix the failing test',
        "assistant: I'll read the test.",
        'assistant: Running it.',
        'assistant: Fixed the test.',
        'user: Now add docs',
        'assistant: Docs added.',
        'assistant: Done with docs.',
      ]);
      assert.deepStrictEqual(pairs(store, session), [['execute_command', 'ok', 'exit 1']]);
      assert.deepStrictEqual(usageOf(store, session), chatTotals(clineUiMessages()));
      assert.strictEqual(events(store, session, 'cline/ui_tool').length, 1);
      assert.strictEqual((await ingestFile(store, task)).appended, 0);
    });

    it("a task with only its API history reads the conversation, and Cline's per-message metrics as its requests", async () => {
      const task = writeTask(dir, CLINE_ID, CLINE_TASK, { api: clineApiHistory() });
      await ingestFile(store, task);
      assert.strictEqual(conversation(store, session).length, 6);
      const metrics = (clineApiHistory() as { metrics?: { tokens: { prompt: number; completion: number; cached: number } } }[]).flatMap((m) => m.metrics ?? []);
      assert.deepStrictEqual(usageOf(store, session), {
        attempts: metrics.length,
        inputTokens: metrics.reduce((a, m) => a + m.tokens.prompt, 0),
        outputTokens: metrics.reduce((a, m) => a + m.tokens.completion, 0),
        cachedTokens: metrics.reduce((a, m) => a + m.tokens.cached, 0),
      });
      const meta = dataOf(events(store, session, 'session/meta')[0]);
      assert.deepStrictEqual([meta.model, meta.cwd, meta.title], ['claude-sonnet-4-5', CWD, 'Fix the failing test']);
    });

    it("early chats' api_req_finished figures, and Cline's aggregates of deleted requests and subagents, are requests too", async () => {
      const T = Number(CLINE_TASK);
      const ui = [
        { ts: T, type: 'say', say: 'task', text: 'Old task' },
        { ts: T + 1, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '<task>Old task</task>' }) },
        { ts: T + 2, type: 'say', say: 'api_req_finished', text: JSON.stringify({ tokensIn: 7, tokensOut: 3, cacheWrites: 0, cacheReads: 0, cost: 0.001 }) },
        { ts: T + 3, type: 'say', say: 'deleted_api_reqs', text: JSON.stringify({ tokensIn: 40, tokensOut: 4, cacheWrites: 1, cacheReads: 2, cost: 0.01 }) },
        {
          ts: T + 4,
          type: 'say',
          say: 'subagent_usage',
          text: JSON.stringify({ source: 'subagents', tokensIn: 500, tokensOut: 50, cacheWrites: 0, cacheReads: 100, cost: 0.05 }),
        },
        { ts: T + 5, type: 'ask', ask: 'completion_result', text: '' },
      ];
      await ingestFile(store, writeTask(dir, CLINE_ID, CLINE_TASK, { api: [], ui }));
      const attempts = events(store, session, 'provider/attempt').map((e) => [dataOf(e).aggregate ?? 'request', dataOf(e).usage]);
      assert.deepStrictEqual(attempts, [
        [
          'request',
          {
            inputTokens: 7,
            outputTokens: 3,
            cachedTokens: 0,
            cacheCreationTokens: 0,
            reasoningTokens: 0,
            inputIncludesCached: true,
            reported: { input: 7, output: 3, cacheRead: 0, cacheWrite: 0 },
          },
        ],
        [
          'deleted_api_reqs',
          {
            inputTokens: 43,
            outputTokens: 4,
            cachedTokens: 2,
            cacheCreationTokens: 1,
            reasoningTokens: 0,
            inputIncludesCached: true,
            reported: { input: 40, output: 4, cacheRead: 2, cacheWrite: 1 },
          },
        ],
        [
          'subagents',
          {
            inputTokens: 600,
            outputTokens: 50,
            cachedTokens: 100,
            cacheCreationTokens: 0,
            reasoningTokens: 0,
            inputIncludesCached: true,
            reported: { input: 500, output: 50, cacheRead: 100, cacheWrite: 0 },
          },
        ],
      ]);
    });

    it('a copy of a task file under another name, anywhere, is told by its content and read as what it holds', async () => {
      const copy = path.join(dir, 'exported-task.json');
      fs.writeFileSync(copy, JSON.stringify(clineApiHistory(), null, 2));
      const r = await ingestFile(store, copy);
      assert.deepStrictEqual([r.format, r.sessions], ['cline', ['cline:exported-task']]);
      assert.strictEqual(conversation(store, 'cline:exported-task')[0], 'user: Fix the failing test');
    });

    it("Roo Code's condensed context becomes a compaction anchor; the rewritten history appends only what is new", async () => {
      const api = rooXmlApiHistory();
      const task = writeTask(dir, ROO_ID, ROO_TASK, { api, ui: rooXmlUiMessages() });
      await ingestFile(store, task);
      const session = `roo:${ROO_TASK}`;
      const before = conversation(store, session);
      // Roo Code 3.52's non-destructive condense: every message tagged, the summary appended.
      const condensed = [
        ...api.map((m) => ({ ...m, condenseParent: 'c-1' })),
        {
          role: 'user',
          content: [{ type: 'text', text: '## Conversation Summary\nTwo files listed.' }],
          ts: (api.at(-1) as { ts: number }).ts + 1,
          isSummary: true,
          condenseId: 'c-1',
        },
      ];
      writeTask(dir, ROO_ID, ROO_TASK, { api: condensed });
      assert.strictEqual((await ingestFile(store, task)).appended, 1);
      const anchor = store.entries(session).find((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
      assert.strictEqual(anchor?.name, 'compaction/auto');
      assert.strictEqual((anchor?.payload.state as { summary: string }).summary, '## Conversation Summary\nTwo files listed.');
      assert.deepStrictEqual(conversation(store, session), before);
      // A history cut short (a checkpoint restored) drops nothing from the tape and fails nothing.
      writeTask(dir, ROO_ID, ROO_TASK, { api: api.slice(0, 2), ui: rooXmlUiMessages().slice(0, 3) });
      assert.strictEqual((await ingestFile(store, task)).appended, 0);
    });
  });

  describe('subtasks', () => {
    const parent = `roo:${ROO_PARENT}`;
    const child = `roo:${ROO_CHILD}`;
    const write = () => {
      const p = rooParentFiles();
      const c = rooChildFiles();
      return { parentDir: writeTask(dir, ROO_ID, ROO_PARENT, p), childDir: writeTask(dir, ROO_ID, ROO_CHILD, c) };
    };

    it('a parent task reads its subtask first and links it after the new_task call, its head frozen', async () => {
      const { parentDir } = write();
      const r = await ingestFile(store, parentDir);
      assert.deepStrictEqual(r.sessions, [child, parent]);
      const entries = store.entries(parent);
      const callAt = entries.findIndex((e) => e.kind === 'tool_call' && e.name === 'new_task');
      const link = entries[callAt + 1];
      assert.strictEqual(link.name, 'subagent/linked');
      assert.deepStrictEqual(
        [dataOf(link).childSessionId, dataOf(link).toolCallId, dataOf(link).childHeadEntryId],
        [child, 'toolu_nt', store.headEntryId(child)],
      );
      assert.deepStrictEqual(readLinked(store, parent, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
      assert.deepStrictEqual(
        childrenOf(store, parent).map((c) => [c.sessionId, c.relation]),
        [[child, 'subagent']],
      );
      assert.strictEqual(parentOf(store, child)?.sessionId, parent);
      assert.deepStrictEqual(pairs(store, parent), [['new_task', 'ok', `Subtask ${ROO_CHILD} completed.\n\nResult:\nBuilt it.`]]);
      assert.deepStrictEqual(conversation(store, child), ['user: Build it', 'assistant: Built it.']);
      assert.strictEqual(dataOf(events(store, child, 'session/meta')[0]).parentSessionId, parent);
      assert.strictEqual(dataOf(events(store, parent, 'session/meta')[0]).cwd, CWD);
      assert.strictEqual((await ingestFile(store, parentDir)).appended, 0);
    });

    it('a subtask read on its own names its parent; when the parent is read after, the link freezes the subtask as it is', async () => {
      const { parentDir, childDir } = write();
      const r = await ingestFile(store, childDir);
      assert.deepStrictEqual(r.sessions, [child]);
      assert.strictEqual(dataOf(events(store, child, 'session/meta')[0]).parentSessionId, parent);
      await ingestFile(store, parentDir);
      assert.deepStrictEqual(readLinked(store, parent, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
    });

    it('a subtask whose folder is damaged is counted, and its parent still reads', async () => {
      const { parentDir, childDir } = write();
      fs.writeFileSync(path.join(childDir, 'api_conversation_history.json'), '[{"role":');
      const r = await ingestFile(store, parentDir);
      assert.deepStrictEqual(r.sessions, [parent]);
      assert.strictEqual(r.skipped['subtask/unreadable'], 1);
    });
  });

  describe('files that cannot be read', () => {
    it('a damaged file is a TapeFileError naming it; in a folder walk the other tasks are still found', async () => {
      const good = writeClineTask(dir);
      const bad = writeRooXmlTask(dir);
      const file = path.join(bad, 'api_conversation_history.json');
      fs.writeFileSync(file, '[{"role":"user","content":');
      await assert.rejects(ingestFile(store, bad), (e: unknown) => e instanceof TapeFileError && e.message.startsWith(`${file}: is not valid JSON`));
      const found = sourcesUnder(dir);
      assert.deepStrictEqual(found.sort(), [good, bad].sort());
      assert.strictEqual((await ingestFile(store, good)).sessions.length, 1);
      fs.writeFileSync(file, '{"not":"a list"}');
      await assert.rejects(ingestFile(store, bad), /holds no list of messages/);
    });

    it('a task file that is a symbolic link to /dev/zero, or a FIFO, is refused', async function () {
      if (process.platform === 'win32') this.skip();
      const task = writeTask(dir, CLINE_ID, CLINE_TASK, { ui: clineUiMessages() });
      fs.symlinkSync('/dev/zero', path.join(task, 'api_conversation_history.json'));
      await assert.rejects(ingestFile(store, task), /not a regular file; refusing to read it/);
      fs.rmSync(path.join(task, 'api_conversation_history.json'));
      execFileSync('mkfifo', [path.join(task, 'api_conversation_history.json')]);
      await assert.rejects(ingestFile(store, task), /a FIFO \(named pipe\), not a regular file/);
      assert.deepStrictEqual(store.sessions(), []);
    });

    it('a folder holding neither file is not a task', async () => {
      const empty = path.join(dir, ROO_ID, 'tasks', 'empty');
      fs.mkdirSync(empty, { recursive: true });
      await assert.rejects(ingestFile(store, empty, 'roo'), /holds neither api_conversation_history.json nor ui_messages.json/);
    });
  });

  describe('paths and discovery', () => {
    it('a task file stands for its folder, of the agent whose storage holds it', () => {
      const cline = writeClineTask(dir);
      const roo = writeRooXmlTask(dir);
      const copy = writeTask(path.join(dir, 'backup'), 'some.other', 'task-1', { api: clineApiHistory() });
      for (const [file, format, source] of [
        [path.join(cline, 'ui_messages.json'), 'cline', cline],
        [path.join(cline, 'task_metadata.json'), 'cline', cline],
        [roo, 'roo', roo],
        [path.join(roo, 'api_conversation_history.json'), 'roo', roo],
        [copy, 'cline', copy],
      ] as const) {
        const found = sourceOfPath(file);
        assert.deepStrictEqual([found?.format.name, found?.source], [format, source], file);
      }
      assert.strictEqual(sourceOfPath(path.join(dir, 'project', 'tasks', 'notes')), null, 'not a folder of any task');
    });

    it("lists this workspace's tasks of each agent, newest first, with the first prompt; follows only theirs", () => {
      const globalStorage = path.join(dir, 'globalStorage');
      const clineTask = writeClineTask(globalStorage);
      const rooTask = writeRooXmlTask(globalStorage);
      const p = rooParentFiles();
      const parentTask = writeTask(globalStorage, ROO_ID, ROO_PARENT, { ui: p.ui, historyItem: p.historyItem });
      const elsewhere = writeTask(globalStorage, KILO_ID, 'other', {
        api: [
          {
            role: 'user',
            content: [
              { type: 'text', text: '<task>\nX\n</task>' },
              { type: 'text', text: '<environment_details>\n# Current Workspace Directory (/elsewhere) Files\n</environment_details>' },
            ],
          },
        ],
      });
      const cli = writeTask(path.join(dir, 'home', '.cline', 'data'), '', '1767400000000', { api: clineApiHistory() });
      const times = [clineTask, rooTask, parentTask, cli];
      times.forEach((t, i) => {
        for (const f of fs.readdirSync(t)) fs.utimesSync(path.join(t, f), new Date(1_800_000_000_000 + i * 1000), new Date(1_800_000_000_000 + i * 1000));
      });
      const places = { workspace: CWD, home: path.join(dir, 'home'), globalStorage };
      const found = clineDiscovery.discover(places);
      assert.deepStrictEqual(
        found.map((s) => [s.format, s.file, s.firstPrompt]),
        [
          ['cline', cli, 'Fix the failing test'],
          ['roo', parentTask, 'Plan and build it'],
          ['roo', rooTask, 'List the files'],
          ['cline', clineTask, 'Fix the failing test'],
        ],
      );
      assert.ok(clineDiscovery.roots(places).includes(path.join(globalStorage, ROO_ID, 'tasks')));
      assert.ok(clineDiscovery.roots(places).includes(path.join(dir, 'home', '.cline', 'data', 'tasks')));
      assert.strictEqual(clineDiscovery.sourceOf(path.join(rooTask, 'ui_messages.json'), places), rooTask);
      assert.strictEqual(clineDiscovery.sourceOf(parentTask, places), parentTask);
      assert.strictEqual(clineDiscovery.sourceOf(path.join(elsewhere, 'api_conversation_history.json'), places), null);
      assert.strictEqual(clineDiscovery.sourceOf(path.join(rooTask, 'checkpoints', 'HEAD'), places), null);
      // Without VS Code's storage named, the platform's usual place is looked at.
      assert.ok(clineDiscovery.roots({ workspace: CWD, home: '/h' }).some((r) => r.endsWith(path.join('Code', 'User', 'globalStorage', CLINE_ID, 'tasks'))));
    });
  });
});
