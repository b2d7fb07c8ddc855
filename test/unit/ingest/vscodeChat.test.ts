import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { sourcesUnder } from '../../../src/ingest/sourcesUnder';
import { discoverSessions, workspaceSourceOf } from '../../../src/ingest/sessionDiscovery';
import { replayMutationLog } from '../../../src/ingest/vscodeChat/mutationLog';
import { vscodeChat } from '../../../src/ingest/vscodeChat/vscodeChatFormat';
import { TapeFileError } from '../../../src/store/errors';
import { parentOf } from '../../../src/store/forks';
import { readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import {
  agentRequest,
  askRequest,
  initialEntry,
  logLines,
  requestLines,
  sessionJson,
  T0,
  VSC_SESSION,
  WORKSPACE,
  workspaceStorage,
} from './vscodeChatFixtures';
import { calls, conversation, usageOf } from './foldedSession';

const SESSION = `vscode-chat:${VSC_SESSION}`;

/** The conversation a person reads: user prompts and assistant texts, in order. */
const events = (store: TapeStore, sessionId: string, name: string) =>
  store
    .entries(sessionId)
    .filter((e) => e.kind === 'event' && e.name === name)
    .map((e) => e.payload.data as Record<string, unknown>);

describe('VS Code chat sessions (vscode-chat)', function () {
  this.timeout(20_000);
  let dir: string;
  let storage: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-vscode-chat-'));
    storage = workspaceStorage(dir);
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const sessionsDir = () => path.join(storage, 'chatSessions');
  const writeJson = (value: unknown, name = `${VSC_SESSION}.json`): string => {
    const file = path.join(sessionsDir(), name);
    fs.writeFileSync(file, JSON.stringify(value, undefined, 2));
    return file;
  };

  describe('the serialised model (.json, version 3)', () => {
    it('has the prompts and answers in order, each round call paired with its stored result, the figures, edits, thinking and references', async () => {
      const requests = [agentRequest(), askRequest()];
      const file = writeJson(sessionJson(requests));
      const report = await ingestFile(store, file);
      assert.strictEqual(report.format, 'vscode-chat');
      assert.deepStrictEqual(conversation(store, SESSION), [
        'user: Fix the bug in #file:main.ts',
        // The markdown parts, a paragraph apart where a tool call stood between them, the inline reference as VS Code copies it.
        'assistant: I will read the file first.\n\nFixed the bug in `main.ts`.',
        'user: Thanks, and the docs?',
        'assistant: The docs are in README.md.',
      ]);
      // The model's calls are the rounds' (their ids, names and arguments), with what each returned to the
      // model; the terminal call no round names is a call of its own, an error by its exit code.
      assert.deepStrictEqual(calls(store, SESSION), [
        ['toolu_read1__vscode-1', 'read_file', 'ok', 'const bug = 1;\n'],
        ['toolu_edit1', 'replace_string_in_file', 'ok', 'The file was edited.'],
        ['tc-terminal-1', 'run_in_terminal', 'error', '3 failing'],
      ]);
      const callEntries = store.entries(SESSION).filter((e) => e.kind === 'tool_call');
      assert.deepStrictEqual(callEntries[0].payload.input, { filePath: `${WORKSPACE}/src/main.ts`, startLine: 1, endLine: 20 });
      assert.strictEqual(callEntries[0].payload.toolId, 'copilot_readFile', 'joined with its invocation part');
      assert.strictEqual(callEntries[0].createdAt, T0 + 1_100, "at its round's time");
      assert.deepStrictEqual(callEntries[2].payload.input, { command: 'npm test' });

      const sum = requests.reduce<{ input: number; output: number }>(
        (t, r) => ({ input: t.input + Number(r.promptTokens), output: t.output + Number(r.completionTokens) }),
        { input: 0, output: 0 },
      );
      const usage = usageOf(store, SESSION);
      assert.deepStrictEqual([usage.attempts, usage.inputTokens, usage.outputTokens], [2, sum.input, sum.output]);
      assert.strictEqual(events(store, SESSION, 'provider/attempt')[0].modelCalls, 3, 'the rounds are its model calls');

      const [meta] = events(store, SESSION, 'session/meta');
      assert.deepStrictEqual(
        [meta.agent, meta.model, meta.cwd, meta.source, meta.title],
        ['vscode-chat', 'copilot/gpt-4.1', WORKSPACE, file, 'Fix the main.ts bug'],
        'cwd from the workspace.json VS Code keeps beside chatSessions/',
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'vscode-chat/thinking').map((d) => d.text),
        ['The bug is in main.ts; '],
      );
      const [edit] = events(store, SESSION, 'vscode-chat/edit');
      assert.deepStrictEqual([edit.uri, edit.done, (edit.edits as unknown[][])[0].length], [`${WORKSPACE}/src/main.ts`, true, 1]);
      const [refs] = events(store, SESSION, 'vscode-chat/references');
      assert.deepStrictEqual(refs.references, [`${WORKSPACE}/README.md`, `${WORKSPACE}/src/main.ts`]);
      assert.deepStrictEqual(events(store, SESSION, 'vscode-chat/variables')[0].variables, [
        { id: `file://${WORKSPACE}/src/main.ts`, name: 'file:main.ts', kind: 'file', uri: `${WORKSPACE}/src/main.ts` },
      ]);
      const messages = store.entries(SESSION).filter((e) => e.kind === 'message');
      assert.deepStrictEqual(
        messages.map((m) => m.createdAt),
        [T0 + 1_000, T0 + 1_050, T0 + 60_000, T0 + 60_020],
        "the source's times",
      );
      // A part kind this version does not know is counted, and so are the parts that only structure the view.
      assert.deepStrictEqual(report.skipped, {
        'response/thinking-empty': 1,
        'response/undoStop': 1,
        'response/codeblockUri': 1,
        'response/sparkleGlitter': 1,
      });

      const again = await ingestFile(store, file);
      assert.strictEqual(again.appended, 0);
    });

    it('reads versions 1 and 2: a plain-string message and response, computedTitle as the title', async () => {
      const v1 = writeJson(
        {
          requesterUsername: 'me',
          responderUsername: 'GitHub Copilot',
          sessionId: 'old-1',
          creationDate: T0,
          requests: [{ requestId: 'r1', message: 'What is this?', response: [{ value: 'A test.', isTrusted: false }], isCanceled: false }],
        },
        'old-1.json',
      );
      const v2 = writeJson(
        {
          version: 2,
          sessionId: 'old-2',
          creationDate: T0,
          computedTitle: 'Old title',
          responderUsername: 'x',
          requests: [{ requestId: 'r1', message: { text: 'Hi' }, response: 'Hello.' }],
        },
        'old-2.json',
      );
      await ingestFile(store, v1);
      await ingestFile(store, v2);
      assert.deepStrictEqual(conversation(store, 'vscode-chat:old-1'), ['user: What is this?', 'assistant: A test.']);
      assert.deepStrictEqual(conversation(store, 'vscode-chat:old-2'), ['user: Hi', 'assistant: Hello.']);
      assert.strictEqual(events(store, 'vscode-chat:old-2', 'session/meta')[0].title, 'Old title');
    });

    it('takes per-model totals when the provider reported them, and leaves out undone, running and queued requests (counted)', async () => {
      const totals = [
        { model: 'claude-sonnet-4', inputTokens: 900, cachedTokens: 400, outputTokens: 60 },
        { model: 'gpt-4.1-mini', inputTokens: 100, cachedTokens: 0, outputTokens: 5 },
      ];
      const requests = [
        { ...askRequest('r-totals'), modelTotals: totals },
        { ...askRequest('r-undone', 'Undone?', 'Yes.', T0 + 70_000), shouldBeRemovedOnSend: { requestId: 'r-undone' } },
        { ...askRequest('r-running', 'Still?', 'Wor', T0 + 80_000), modelState: { value: 0 } },
      ];
      const report = await ingestFile(store, writeJson(sessionJson(requests, { pendingRequests: [{ id: 'q1', request: {}, kind: 0, sendOptions: {} }] })));
      assert.deepStrictEqual(conversation(store, SESSION), ['user: Thanks, and the docs?', 'assistant: The docs are in README.md.']);
      const usage = usageOf(store, SESSION);
      assert.deepStrictEqual(
        [usage.attempts, usage.inputTokens, usage.outputTokens, usage.cachedTokens],
        [2, totals[0].inputTokens + totals[1].inputTokens, totals[0].outputTokens + totals[1].outputTokens, totals[0].cachedTokens],
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'provider/attempt').map((d) => d.model),
        ['claude-sonnet-4', 'gpt-4.1-mini'],
      );
      assert.deepStrictEqual(report.skipped, { 'request/undone': 1, 'request/in-progress': 1, 'request/queued': 1 });
    });

    it("one call per real call: each round's call joined with its invocation part, whose id VS Code took before it kept Copilot's is its own", async () => {
      // Copilot's ids as the model gave them with the suffix Copilot adds; the parts keyed by ids of VS Code's own (a UUID),
      // VS Code's tool ids not the names the model used: only the order tells which part is which call.
      const read = 'toolu_vrtx_01NYhKqQ3cJ5R8sWmX2dTfLa__vscode-1771008513194';
      const grep = 'toolu_vrtx_01Ku8t39zS9jetGpQMVMQU7X__vscode-1771008513195';
      const md = (value: string) => ({ value, supportThemeIcons: false, supportHtml: false, uris: {} });
      const part = (toolCallId: string, toolId: string, invocation: string, pastTense: string) => ({
        kind: 'toolInvocationSerialized',
        presentation: undefined,
        invocationMessage: md(invocation),
        pastTenseMessage: md(pastTense),
        isConfirmed: { type: 1 },
        isComplete: true,
        source: { type: 'internal', label: 'Built-In' },
        toolCallId,
        toolId,
      });
      const request = {
        ...askRequest('r-two-calls', 'Where is foo defined?', 'In src/foo.ts.'),
        result: {
          timings: { firstProgress: 400, totalElapsed: 3_000 },
          metadata: {
            toolCallRounds: [
              {
                response: '',
                toolCalls: [{ name: 'grep_search', arguments: JSON.stringify({ query: 'function foo', isRegexp: false }), id: grep }],
                toolInputRetry: 0,
                id: 'round-a',
              },
              {
                response: '',
                toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ filePath: `${WORKSPACE}/src/foo.ts`, startLine: 1, endLine: 40 }), id: read }],
                toolInputRetry: 0,
                id: 'round-b',
              },
              { response: 'In src/foo.ts.', toolCalls: [], toolInputRetry: 0, id: 'round-c' },
            ],
            toolCallResults: {
              [grep]: { $mid: 20, content: [{ $mid: 21, value: '1 match\nsrc/foo.ts:3: export function foo() {' }] },
              [read]: { $mid: 20, content: [{ $mid: 21, value: 'export function foo() {}\n' }] },
            },
          },
        },
        response: [
          part(
            '9f2d7c1e-3b4a-4c5d-8e6f-7a8b9c0d1e2f',
            'copilot_findTextInFiles',
            'Searching text for `function foo`',
            'Searched text for `function foo`, 1 result',
          ),
          part('1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d', 'copilot_readFile', 'Reading foo.ts, lines 1 to 40', 'Read foo.ts, lines 1 to 40'),
          md('In src/foo.ts.'),
        ],
      };
      await ingestFile(store, writeJson(sessionJson([request])));
      assert.deepStrictEqual(calls(store, SESSION), [
        [grep, 'grep_search', 'ok', '1 match\nsrc/foo.ts:3: export function foo() {'],
        [read, 'read_file', 'ok', 'export function foo() {}\n'],
      ]);
      const callEntries = store.entries(SESSION).filter((e) => e.kind === 'tool_call');
      assert.deepStrictEqual(
        callEntries.map((e) => [e.payload.toolId, e.payload.title, e.payload.pastTense]),
        [
          ['copilot_findTextInFiles', 'Searching text for `function foo`', 'Searched text for `function foo`, 1 result'],
          ['copilot_readFile', 'Reading foo.ts, lines 1 to 40', 'Read foo.ts, lines 1 to 40'],
        ],
        "the part's messages are on the call it shows",
      );
    });

    it("links a subagent's session: its prompt, its own tool calls, its answer", async () => {
      const request = {
        ...askRequest('r-sub', 'Who calls foo?', 'bar.ts calls it.'),
        response: [
          {
            kind: 'toolInvocationSerialized',
            invocationMessage: 'Find callers',
            isComplete: true,
            toolCallId: 'call_sub1',
            toolId: 'runSubagent',
            toolSpecificData: {
              kind: 'subagent',
              description: 'Find callers',
              agentName: 'Explore',
              prompt: 'Find the callers of foo',
              result: 'foo is called in bar.ts',
              modelName: 'GPT-4.1',
            },
          },
          {
            kind: 'toolInvocationSerialized',
            invocationMessage: 'Searching',
            isComplete: true,
            toolCallId: 'call_grep1',
            toolId: 'copilot_findTextInFiles',
            subAgentInvocationId: 'call_sub1',
            resultDetails: { input: '{"query":"foo("}', output: [{ type: 'embed', isText: true, value: 'bar.ts:3: foo()' }], isError: false },
          },
          { value: 'bar.ts calls it.' },
        ],
      };
      await ingestFile(store, writeJson(sessionJson([request])));
      const child = `${SESSION}/agent-call_sub1`;
      assert.deepStrictEqual(conversation(store, child), ['user: Find the callers of foo', 'assistant: foo is called in bar.ts']);
      assert.deepStrictEqual(calls(store, child), [['call_grep1', 'copilot_findTextInFiles', 'ok', 'bar.ts:3: foo()']]);
      assert.deepStrictEqual(calls(store, SESSION), [['call_sub1', 'runSubagent', 'ok', 'foo is called in bar.ts']]);
      assert.deepStrictEqual(parentOf(store, child), { sessionId: SESSION, relation: 'subagent', at: null });
      assert.strictEqual(readLinked(store, SESSION, child).frozenHead, store.headEntryId(child));
      assert.deepStrictEqual(
        [events(store, child, 'session/meta')[0].parentSessionId, events(store, child, 'session/meta')[0].title],
        [SESSION, 'Find callers'],
      );
    });

    it('a damaged file is a TapeFileError naming it, and the others of the folder still import; a FIFO or a link to /dev/zero is refused', async () => {
      const good = writeJson(sessionJson([askRequest()]));
      const bad = path.join(sessionsDir(), 'b4d.json');
      fs.writeFileSync(bad, '{"version":3,"requests":[{"requestId":');
      const failed: string[] = [];
      for (const source of sourcesUnder(dir)) {
        try {
          await ingestFile(store, source);
        } catch (e) {
          assert.ok(e instanceof TapeFileError && e.file === bad && e.message.startsWith(bad), String(e));
          failed.push(source);
        }
      }
      assert.deepStrictEqual([failed, conversation(store, SESSION).length], [[bad], 2]);
      assert.ok(sourcesUnder(dir).includes(good));

      const zero = path.join(sessionsDir(), 'zero.jsonl');
      fs.symlinkSync('/dev/zero', zero);
      await assert.rejects(ingestFile(store, zero), (e: Error) => e instanceof TapeFileError && /not a regular file/.test(e.message));
      const fifo = path.join(sessionsDir(), 'fifo.json');
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(ingestFile(store, fifo), (e: Error) => e instanceof TapeFileError && /is a FIFO \(named pipe\)/.test(e.message));
    });
  });

  describe('the mutation log (.jsonl)', () => {
    const logFile = () => path.join(sessionsDir(), `${VSC_SESSION}.jsonl`);

    it('replays to the same conversation as the flat file; a running request waits, and completing it appends exactly it', async () => {
      const file = logFile();
      const a = requestLines(agentRequest(), 0);
      fs.writeFileSync(file, logLines(initialEntry()) + a.running);
      const running = await ingestFile(store, file);
      assert.deepStrictEqual([running.appended, running.skipped], [0, { 'request/in-progress': 1 }]);

      fs.appendFileSync(file, a.completing + logLines({ kind: 1, k: ['customTitle'], v: 'Fix the main.ts bug' }, { kind: 3, k: ['inputState'] }));
      const first = await ingestFile(store, file);
      assert.ok(first.appended > 0);
      assert.deepStrictEqual(conversation(store, SESSION), [
        'user: Fix the bug in #file:main.ts',
        'assistant: I will read the file first.\n\nFixed the bug in `main.ts`.',
      ]);
      assert.strictEqual(calls(store, SESSION).length, 3);
      assert.strictEqual(events(store, SESSION, 'session/meta').at(-1)?.title, 'Fix the main.ts bug');

      // The same session as a flat file maps to the same entries: nothing new.
      const flat = writeJson(sessionJson([agentRequest()]), 'flat-copy.json');
      assert.strictEqual((await ingestFile(store, flat)).appended, 0);
      assert.strictEqual((await ingestFile(store, file)).appended, 0, 're-ingest appends nothing');

      const before = store.headEntryId(SESSION);
      const b = requestLines(askRequest(), 1);
      fs.appendFileSync(file, b.running + b.completing);
      const grown = await ingestFile(store, file);
      const added = store.entries(SESSION).filter((e) => e.entryId > before);
      assert.strictEqual(grown.appended, added.length);
      assert.deepStrictEqual(
        added.map((e) => e.name),
        ['session/meta', 'message/user', 'message/assistant', 'provider/attempt'],
        'the session/meta that names the new model, and the new request',
      );
      assert.ok(added.slice(1).every((e) => (e.provenanceKey ?? '').includes('request_b2')));
      assert.deepStrictEqual(conversation(store, SESSION).slice(2), ['user: Thanks, and the docs?', 'assistant: The docs are in README.md.']);
    });

    it("reads a request's figures from its usage, as the log sets them, and from the flat file alike", async () => {
      const { promptTokens, completionTokens: _reportedFlat, ...request } = askRequest();
      const usage = { promptTokens, completionTokens: 73, copilotCredits: 1, actualModelId: 'gpt-4.1-2025-04-14', kind: 'usage' };
      const { running, completing } = requestLines({ ...request, promptTokens: undefined, completionTokens: undefined }, 0);
      const file = logFile();
      fs.writeFileSync(file, logLines(initialEntry()) + running + completing.replace(/.*"(promptTokens|completionTokens)".*\n/g, ''));
      fs.appendFileSync(file, logLines({ kind: 1, k: ['requests', 0, 'usage'], v: usage }));
      await ingestFile(store, file);
      const fromLog = usageOf(store, SESSION);
      assert.deepStrictEqual([fromLog.attempts, fromLog.inputTokens, fromLog.outputTokens], [1, promptTokens, 73]);
      const [attempt] = events(store, SESSION, 'provider/attempt');
      assert.deepStrictEqual([attempt.model, attempt.copilotCredits], ['gpt-4.1-2025-04-14', 1], 'the model that served the request');

      const flatSession = 'flat-usage';
      await ingestFile(store, writeJson(sessionJson([{ ...request, usage }], { sessionId: flatSession }), `${flatSession}.json`));
      const fromFlat = usageOf(store, `vscode-chat:${flatSession}`);
      assert.deepStrictEqual([fromFlat.attempts, fromFlat.inputTokens, fromFlat.outputTokens], [1, promptTokens, 73]);
    });

    it('leaves a torn last line for the next run, counted; a whole last line without its newline counts', async () => {
      const file = logFile();
      const line = JSON.stringify({ kind: 2, k: ['requests'], v: [askRequest()] });
      fs.writeFileSync(file, logLines(initialEntry()) + line.slice(0, 40));
      const torn = await ingestFile(store, file);
      assert.deepStrictEqual([torn.appended, torn.skipped, torn.tornLastLine], [0, {}, true]);
      fs.writeFileSync(file, logLines(initialEntry()) + line);
      const whole = await ingestFile(store, file);
      assert.deepStrictEqual([whole.skipped, whole.tornLastLine], [{}, false]);
      assert.deepStrictEqual(conversation(store, SESSION), ['user: Thanks, and the docs?', 'assistant: The docs are in README.md.']);
    });

    it("waits for a request whose completion is written but whose last lines are not yet: VS Code appends a save's changes at once, the response parts after the state", async () => {
      const file = logFile();
      const request = askRequest();
      const { running, completing } = requestLines({ ...request, response: [{ value: 'The docs are ' }, { value: 'in' }] }, 0);
      const rest = JSON.stringify({ kind: 2, k: ['requests', 0, 'response'], i: 1, v: [{ value: 'in README.md.' }] });
      for (const torn of [rest.slice(0, 60), rest.slice(0, 4)]) {
        fs.writeFileSync(file, logLines(initialEntry()) + running + completing + torn);
        const waiting = await ingestFile(store, file);
        assert.deepStrictEqual([waiting.appended, waiting.skipped, waiting.tornLastLine], [0, { 'request/in-progress': 1 }, true], torn);
      }
      fs.writeFileSync(file, logLines(initialEntry()) + running + completing + rest + '\n');
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, SESSION), ['user: Thanks, and the docs?', 'assistant: The docs are in README.md.']);
    });

    it('keeps a request an edited prompt removed, and orders the resent one after it', async () => {
      const file = logFile();
      fs.writeFileSync(file, logLines(initialEntry(), { kind: 2, k: ['requests'], v: [askRequest('r1', 'First try', 'Answer one.', T0 + 1_000)] }));
      await ingestFile(store, file);
      // VS Code cuts the array at the edited request and pushes the new one.
      fs.appendFileSync(file, logLines({ kind: 2, k: ['requests'], i: 0, v: [askRequest('r2', 'Second try', 'Answer two.', T0 + 9_000)] }));
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, SESSION), ['user: First try', 'assistant: Answer one.', 'user: Second try', 'assistant: Answer two.']);
    });

    it('follows VS Code: sets, pushes with a cut, deletes; counts entries it cannot apply; refuses a log without its initial state', () => {
      const log = logLines(
        { kind: 0, v: { a: { list: [1, 2, 3] }, gone: true } },
        { kind: 2, k: ['a', 'list'], i: 1, v: [9] },
        { kind: 2, k: ['a', 'new'], v: [1] },
        { kind: 1, k: ['a', 'list', 0], v: 'x' },
        { kind: 3, k: ['gone'] },
        { kind: 1, k: ['__proto__', 'polluted'], v: 1 },
        { kind: 1, k: ['missing', 'deep'], v: 1 },
        { kind: 1, k: ['a', 'list', 7], v: 1 },
        { kind: 9, k: [] },
      );
      const { state, skipped } = replayMutationLog('x.jsonl', Buffer.from(log));
      assert.deepStrictEqual(state, { a: { list: ['x', 9], new: [1] } });
      assert.deepStrictEqual(skipped, { 'log/bad-path': 3, 'log/invalid-entry': 1 });
      assert.strictEqual(({} as Record<string, unknown>).polluted, undefined);
      assert.throws(
        () => replayMutationLog('y.jsonl', Buffer.from(logLines({ kind: 1, k: ['a'], v: 1 }))),
        (e: Error) => e instanceof TapeFileError && e.message.startsWith('y.jsonl:1: ') && /does not start with the whole session state/.test(e.message),
      );
      const deep = logLines(
        { kind: 0, v: { a: {} } },
        ...Array.from({ length: 12 }, (_, i) => ({ kind: 1, k: ['a', ...Array(i).fill('b')], v: { b: JSON.parse('['.repeat(250) + ']'.repeat(250)) } })),
      );
      assert.throws(
        () => replayMutationLog('z.jsonl', Buffer.from(deep)),
        (e: Error) => e instanceof TapeFileError && /nests arrays and objects more than 256 levels/.test(e.message),
      );
    });
  });

  describe('detection and discovery', () => {
    it('claims files directly in chatSessions/ by path, and recognizes a session anywhere else by its content', () => {
      assert.strictEqual(vscodeChat.sourceOfPath(path.join(sessionsDir(), 'x.jsonl')), path.join(sessionsDir(), 'x.jsonl'));
      assert.strictEqual(vscodeChat.sourceOfPath(path.join(storage, 'x.json')), null);
      assert.strictEqual(vscodeChat.sourceOfPath(path.join(sessionsDir(), 'x.txt')), null);
      assert.ok(vscodeChat.recognizes('s.json', Buffer.from(JSON.stringify(sessionJson([askRequest()])))));
      assert.ok(vscodeChat.recognizes('s.jsonl', Buffer.from(logLines(initialEntry()))));
      // Cut off by the head, the start still tells.
      assert.ok(vscodeChat.recognizes('s.json', Buffer.from(JSON.stringify(sessionJson([askRequest()]), undefined, 2).slice(0, 200))));
      assert.ok(!vscodeChat.recognizes('s.json', Buffer.from('{"requests":"no","version":1}')));
      assert.ok(!vscodeChat.recognizes('s.json', Buffer.from('{"type":"user","message":{}}')));
    });

    it("lists this window's sessions newest first with their title or first prompt, a flat file beside its log once", () => {
      const places = { workspace: WORKSPACE, home: dir, workspaceStorage: storage };
      const write = (name: string, text: string, mtime: number): string => {
        const file = path.join(sessionsDir(), name);
        fs.writeFileSync(file, text);
        fs.utimesSync(file, mtime, mtime);
        return file;
      };
      write('s1.json', JSON.stringify(sessionJson([agentRequest()], { sessionId: 's1' })), 1_000);
      const b = requestLines(askRequest(), 0);
      write('s2.jsonl', logLines(initialEntry()) + b.running, 3_000);
      write('s3.jsonl', logLines(initialEntry()), 2_000);
      write('s2.json', JSON.stringify(sessionJson([], { sessionId: 's2' })), 500);
      write('notes.txt', 'x', 4_000);
      const found = discoverSessions(places).filter((s) => s.format === 'vscode-chat');
      assert.deepStrictEqual(
        found.map((s) => [path.basename(s.file), s.firstPrompt]),
        [
          ['s2.jsonl', 'Thanks, and the docs?'],
          ['s3.jsonl', null],
          ['s1.json', 'Fix the main.ts bug'],
        ],
      );
      assert.strictEqual(workspaceSourceOf(path.join(sessionsDir(), 's2.jsonl'), places), path.join(sessionsDir(), 's2.jsonl'));
      assert.strictEqual(workspaceSourceOf(path.join(dir, 'other', 'chatSessions', 's2.jsonl'), places), null);
      assert.deepStrictEqual(
        discoverSessions({ workspace: WORKSPACE, home: dir }).filter((s) => s.format === 'vscode-chat'),
        [],
        'outside VS Code there is no window storage',
      );
    });
  });
});
