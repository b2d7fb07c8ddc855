import * as assert from 'assert';
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { gemini } from '../../../src/ingest/gemini/gemini';
import { projectHashOf } from '../../../src/ingest/gemini/projectDirs';
import { ingestFile } from '../../../src/ingest/ingest';
import { discoverSessions, discoveryRoots, workspaceSourceOf } from '../../../src/ingest/sessionDiscovery';
import { sourcesUnder } from '../../../src/ingest/sourcesUnder';
import { TapeFileError } from '../../../src/store/errors';
import { childrenOf, parentOf } from '../../../src/store/forks';
import { readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import {
  JSONL_AGENT,
  JSONL_FILE,
  JSONL_SESSION,
  jsonl,
  jsonlRecords,
  jsonlSubagentRecords,
  sha256,
  slugProject,
  tokenTotals,
  V10_SESSION,
  V35_SESSION,
  V38_AGENT,
  V38_SESSION,
  v38Session,
  v38Subagent,
  WORKSPACE,
  writeJsonlSession,
  writeV10Session,
  writeV35Session,
  writeV38Session,
} from './geminiFixtures';
import { calls, conversation, usageOf } from './foldedSession';

const SESSION = `gemini:${JSONL_SESSION}`;
const CHILD = `${SESSION}/agent-${JSONL_AGENT}`;

/** The conversation a person reads: user prompts and assistant texts, in order. */
const events = (store: TapeStore, sessionId: string, name: string) =>
  store
    .entries(sessionId)
    .filter((e) => e.kind === 'event' && e.name === name)
    .map((e) => e.payload.data as Record<string, unknown>);
const lastMeta = (store: TapeStore, sessionId: string) => events(store, sessionId, 'session/meta').at(-1);
const keys = (store: TapeStore, sessionId: string) =>
  store
    .entries(sessionId)
    .map((e) => e.provenanceKey)
    .sort();
/** The messages a JSONL log holds, as lines and inside checkpoints. */
const messagesOf = (records: readonly object[]): object[] =>
  records.flatMap((r) => ('$set' in r ? ((r.$set as { messages?: object[] }).messages ?? []) : 'id' in r ? [r] : []));

describe('Gemini CLI sessions (gemini)', function () {
  this.timeout(20_000);
  let home: string;
  let store: TapeStore;
  beforeEach(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-gemini-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  describe('a v0.39+ JSONL log', () => {
    it('maps prompts and answers in order, tool calls with results, thoughts, notices, a rewind, a subagent, skipped types', async () => {
      const file = writeJsonlSession(home);
      const r = await ingestFile(store, file);
      assert.strictEqual(r.format, 'gemini');
      assert.deepStrictEqual(r.sessions, [SESSION, CHILD]);
      assert.deepStrictEqual(r.skipped, { 'user/function_response': 2, 'message/mystery': 1, 'unknown-record': 1 });
      assert.deepStrictEqual(conversation(store, SESSION), [
        'user: Fix the failing test in a.test.ts',
        "assistant: I'll read the test.",
        'assistant: Fixed.',
        'user: Now add docs',
        'assistant: Adding docs now.',
        'user: Thanks',
        'assistant: You are welcome.',
      ]);
      assert.deepStrictEqual(calls(store, SESSION), [
        ['read_file-1', 'read_file', 'ok', 'test body'],
        ['run_shell_command-2', 'run_shell_command', 'error', 'exit 1'],
        ['codebase_investigator-3', 'codebase_investigator', 'ok', 'Subagent done'],
      ]);
      const entries = store.entries(SESSION);
      assert.deepStrictEqual(
        entries.filter((e) => e.kind === 'tool_call').map((e) => [e.payload.messageId, e.payload.input]),
        [
          ['g1', { absolute_path: '/home/me/my.app/a.test.ts' }],
          ['g1', { command: 'npm test' }],
          ['g2', { objective: 'Investigate' }],
        ],
      );
      // What the person typed, beside what the model got.
      assert.strictEqual(entries.find((e) => e.name === 'message/user')?.payload.displayContent, 'Fix the failing test in @a.test.ts');
      assert.deepStrictEqual(
        events(store, SESSION, 'gemini/thought').map((d) => [d.messageId, d.subject, d.description]),
        [['g1', 'Reading', 'Look at the test first.']],
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'gemini/info').map((d) => d.content),
        ['Chat history compressed from 1000 to 200 tokens.'],
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'gemini/warning').map((d) => d.content),
        ['Approaching the context window.'],
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'gemini/context').map((d) => d.messageId),
        [],
        'the opening context came in by a checkpoint',
      );
      assert.deepStrictEqual(
        events(store, SESSION, 'gemini/history').map((d) => [d.messageId, d.type]),
        [
          ['env', 'user'],
          ['rs2', 'gemini'],
        ],
      );
      // The compression's summary stands for what was said before it, which stays.
      assert.deepStrictEqual(
        entries
          .filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'))
          .map((e) => [e.name, (e.payload.state as Record<string, unknown>).summary]),
        [['compaction/auto', '<state_snapshot>fixed the test</state_snapshot>']],
      );
      // The rewound prompt and answer are on the tape, taken back.
      assert.ok(entries.some((e) => e.payload.content === 'Delete everything'));
      assert.deepStrictEqual(
        events(store, SESSION, 'message/retracted').map((d) => d.messageId),
        ['u3', 'g5'],
      );

      // The subagent: linked right after the call that started it, readable up to its frozen head.
      const at = entries.findIndex((e) => e.kind === 'tool_call' && e.payload.toolCallId === 'codebase_investigator-3');
      const link = entries.slice(at).find((e) => e.name === 'subagent/linked');
      assert.ok(link);
      assert.ok(entries.indexOf(link) < entries.findIndex((e) => e.payload.messageId === 'g3'));
      const data = link.payload.data as Record<string, unknown>;
      assert.deepStrictEqual([data.childSessionId, data.agentId, data.toolCallId, data.messageId], [CHILD, JSONL_AGENT, 'codebase_investigator-3', 'g2']);
      assert.deepStrictEqual(readLinked(store, SESSION, CHILD), { childSessionId: CHILD, frozenHead: store.headEntryId(CHILD) });
      assert.deepStrictEqual(
        childrenOf(store, SESSION).map((c) => [c.sessionId, c.relation]),
        [[CHILD, 'subagent']],
      );
      assert.deepStrictEqual(parentOf(store, CHILD)?.sessionId, SESSION);
      assert.deepStrictEqual(conversation(store, CHILD), ['user: Investigate', 'assistant: Found it.']);
      assert.strictEqual(entries[1].createdAt, Date.parse('2026-08-01T10:00:00.000Z'), 'the source time kept');
    });

    it('session/meta carries the agent, the last model, the folder from the project marker, the source and the summary as title', async () => {
      const file = writeJsonlSession(home);
      await ingestFile(store, file);
      assert.deepStrictEqual(lastMeta(store, SESSION), {
        agent: 'gemini',
        model: 'gemini-2.5-flash',
        cwd: WORKSPACE,
        source: file,
        title: 'Fix the failing test',
        projectHash: sha256(WORKSPACE),
      });
      assert.deepStrictEqual(lastMeta(store, CHILD), {
        agent: 'gemini',
        model: 'gemini-2.5-flash',
        cwd: WORKSPACE,
        source: path.join(path.dirname(file), JSONL_SESSION, `${JSONL_AGENT}.jsonl`),
        title: 'Investigate',
        parentSessionId: SESSION,
        projectHash: sha256(WORKSPACE),
      });
    });

    it('token totals equal the source: each model message counted once, at its last tokens, rewound ones included', async () => {
      await ingestFile(store, writeJsonlSession(home));
      const expected = tokenTotals(messagesOf(jsonlRecords()));
      assert.deepStrictEqual(usageOf(store, SESSION), expected);
      assert.deepStrictEqual(expected, { attempts: 6, inputTokens: 325, outputTokens: 73, cachedTokens: 750 });
      assert.deepStrictEqual(usageOf(store, CHILD), tokenTotals(jsonlSubagentRecords()));
      const attempt = events(store, SESSION, 'provider/attempt')[0];
      assert.deepStrictEqual(attempt, {
        messageId: 'g1',
        model: 'gemini-2.5-pro',
        // Gemini's input counts the cached tokens, its output leaves the thoughts out.
        usage: {
          inputTokens: 100,
          outputTokens: 27,
          cachedTokens: 50,
          cacheCreationTokens: 0,
          reasoningTokens: 7,
          inputIncludesCached: true,
          reported: { input: 100, output: 20, cacheRead: 50, reasoning: 7, tool: 0, total: 127 },
        },
      });
    });

    it('re-ingest appends nothing; a grown log appends exactly its new entries; a torn last line waits for the next run', async () => {
      const records = jsonlRecords();
      const file = writeJsonlSession(home, records.slice(0, 11));
      fs.appendFileSync(file, JSON.stringify(records[11]).slice(0, 30));
      const first = await ingestFile(store, file);
      assert.ok(first.appended > 0);
      assert.strictEqual(first.tornLastLine, true, 'the report says a line is still being written');
      assert.strictEqual((await ingestFile(store, file)).appended, 0);
      assert.deepStrictEqual(conversation(store, SESSION).at(-1), "assistant: I'll read the test.");

      fs.writeFileSync(file, jsonl(records));
      const grown = await ingestFile(store, file);
      assert.strictEqual(grown.tornLastLine, false);
      assert.strictEqual((await ingestFile(store, file)).appended, 0);
      const fresh = await TapeStore.inMemory();
      try {
        const whole = await ingestFile(fresh, file);
        // The one entry a fresh read does not have: the session/meta of the model in use then (a later one is in force).
        const extra = store.entries(SESSION).filter((e) => !keys(fresh, SESSION).includes(e.provenanceKey));
        assert.deepStrictEqual(
          extra.map((e) => [e.name, (e.payload.data as { model?: string }).model]),
          [['session/meta', 'gemini-2.5-pro']],
        );
        assert.strictEqual(first.appended + grown.appended, whole.appended + extra.length);
        assert.deepStrictEqual(keys(store, CHILD), keys(fresh, CHILD));
        assert.deepStrictEqual(conversation(store, SESSION), conversation(fresh, SESSION));
      } finally {
        await fresh.close();
      }
    });

    it('a message written again as it grows is a revision the fold prefers, in its place', async () => {
      const records = jsonlRecords();
      const upTo = (id: string, content: string) =>
        records.findIndex((r) => (r as { id?: string; content?: unknown }).id === id && (r as { content?: unknown }).content === content) + 1;
      const file = writeJsonlSession(home, records.slice(0, upTo('g4', 'Adding')));
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, SESSION).slice(-2), ['user: Now add docs', 'assistant: Adding']);
      fs.writeFileSync(file, jsonl(records.slice(0, upTo('g4', 'Adding docs now.') + 1)));
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, SESSION).slice(-3), ['user: Now add docs', 'assistant: Adding docs now.', 'user: Delete everything']);
      assert.strictEqual(store.entries(SESSION).filter((e) => e.payload.messageId === 'g4' && e.kind === 'message').length, 2);
    });

    /** A v0.61 log: a prompt, and an answer whose line has its tokens and tool call. */
    const said = (): object[] => [
      { sessionId: JSONL_SESSION, projectHash: sha256(WORKSPACE), startTime: '2026-08-01T10:00:00.000Z', kind: 'main' },
      { id: 'u1', timestamp: '2026-08-01T10:00:01.000Z', type: 'user', content: [{ text: 'Read c.txt' }] },
      {
        id: 'g1',
        timestamp: '2026-08-01T10:00:02.000Z',
        type: 'gemini',
        content: '',
        tokens: { input: 120, output: 10, cached: 30, thoughts: 4, tool: 0, total: 134 },
        model: 'gemini-2.5-flash',
        toolCalls: [
          {
            id: 'read-1',
            name: 'read_file',
            args: { file_path: 'c.txt' },
            status: 'success',
            result: [{ functionResponse: { id: 'read-1', name: 'read_file', response: { output: 'see you' } } }],
          },
        ],
      },
    ];
    const functionResponse = [{ functionResponse: { id: 'read-1', name: 'read_file', response: { output: 'see you' } } }];
    const answerOf = (sessionId: string) => ({
      calls: calls(store, sessionId).map(([id, name, status, output]) => [id, name, status, output]),
      attempts: events(store, sessionId, 'provider/attempt').map((d) => d.messageId),
      order: store.entries(sessionId).find((e) => e.payload.messageId === 'g1' && e.kind === 'message')?.payload.orderSeq,
    });
    const asSaid = { calls: [['read-1', 'read_file', 'ok', 'see you']], attempts: ['g1'], order: Date.parse('2026-08-01T10:00:02.000Z') };

    it('a resume (v0.61) writes the said messages back stripped, re-dated: what their own lines said stands', async () => {
      const resumed = {
        $set: {
          messages: [
            { id: 'u1', timestamp: '2026-08-01T11:00:00.000Z', type: 'user', content: [{ text: 'Read c.txt' }] },
            {
              id: 'g1',
              timestamp: '2026-08-01T11:00:00.000Z',
              type: 'gemini',
              content: [{ functionCall: { id: 'read-1', name: 'read_file', args: { file_path: 'c.txt' } } }],
            },
            { id: 'g1_response', timestamp: '2026-08-01T11:00:00.000Z', type: 'user', content: functionResponse },
          ],
        },
      };
      const r = await ingestFile(store, writeJsonlSession(home, [...said(), resumed], []));
      assert.deepStrictEqual(answerOf(SESSION), asSaid);
      // The result it writes back as a turn of its own is the call's, already on the tape.
      assert.deepStrictEqual(events(store, SESSION, 'gemini/history'), []);
      assert.strictEqual(r.skipped['history/function_response'], 1);
    });

    it("a checkpoint that gives the answer's id to the tool result after it leaves the answer as said", async () => {
      const reused = {
        $set: {
          messages: [
            { id: 'u1', type: 'user', content: [{ text: 'Read c.txt' }] },
            { id: 'g1', type: 'user', content: functionResponse },
          ],
        },
      };
      await ingestFile(store, writeJsonlSession(home, [...said(), reused], []));
      assert.deepStrictEqual(answerOf(SESSION), asSaid);
      assert.deepStrictEqual(conversation(store, SESSION), ['user: Read c.txt']);
    });

    it('a tool call still running has no result until it has one', async () => {
      const records = jsonlRecords();
      const g1 = records.find((r) => (r as { id?: string }).id === 'g1') as object;
      const running = { ...g1, toolCalls: [{ id: 'read_file-1', name: 'read_file', args: {}, status: 'executing', timestamp: '2026-08-01T10:01:20.000Z' }] };
      const file = writeJsonlSession(home, [...records.slice(0, 6), running]);
      await ingestFile(store, file);
      assert.deepStrictEqual(
        store
          .entries(SESSION)
          .filter((e) => e.kind === 'tool_call' || e.kind === 'tool_result')
          .map((e) => e.kind),
        ['tool_call'],
      );
      fs.writeFileSync(file, jsonl(records));
      await ingestFile(store, file);
      assert.strictEqual(calls(store, SESSION).length, 3);
    });

    it('a session file given alone with --from gemini outside the Gemini CLI tree is read by its content', async () => {
      const copy = path.join(home, 'copy.jsonl');
      fs.writeFileSync(copy, jsonl(jsonlRecords()));
      const r = await ingestFile(store, copy, 'gemini');
      assert.deepStrictEqual(r.sessions, [SESSION], 'no subagent folder beside it');
      assert.strictEqual(lastMeta(store, SESSION)?.cwd, undefined, 'no project marker to tell the folder by');
    });
  });

  describe('the JSON recordings of v0.4 to v0.38', () => {
    it('v0.38: a pretty-printed document and its nested subagent, linked at the end (no agent id on the call); a cancelled call is an error', async () => {
      const file = writeV38Session(home);
      const r = await ingestFile(store, file);
      const session = `gemini:${V38_SESSION}`;
      const child = `${session}/agent-${V38_AGENT}`;
      assert.deepStrictEqual(r.sessions, [session, child]);
      assert.deepStrictEqual(r.skipped, {});
      assert.deepStrictEqual(conversation(store, session), ['user: Where is the config read?', 'assistant: In src/config.ts.']);
      assert.deepStrictEqual(calls(store, session), [
        ['codebase_investigator-9', 'codebase_investigator', 'ok', 'src/config.ts'],
        ['write_file-10', 'write_file', 'error', 'Cancelled by the user.'],
      ]);
      const entries = store.entries(session);
      assert.strictEqual(entries.at(-1)?.name, 'subagent/linked');
      assert.deepStrictEqual(readLinked(store, session, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
      assert.deepStrictEqual(conversation(store, child), ['user: Find the config', 'assistant: src/config.ts']);
      assert.deepStrictEqual(usageOf(store, session), tokenTotals((v38Session() as { messages: object[] }).messages));
      assert.deepStrictEqual(usageOf(store, child), tokenTotals((v38Subagent() as { messages: object[] }).messages));
      assert.strictEqual(lastMeta(store, session)?.title, 'Where is the config read?');
    });

    it('a subagent file names its parent session file as the source, which reads it', async () => {
      const file = writeV38Session(home);
      const nested = path.join(path.dirname(file), V38_SESSION, `${V38_AGENT}.json`);
      assert.strictEqual(gemini.sourceOfPath(nested), file);
      const r = await ingestFile(store, nested);
      assert.deepStrictEqual(r.sessions, [`gemini:${V38_SESSION}`, `gemini:${V38_SESSION}/agent-${V38_AGENT}`]);
      assert.deepStrictEqual(sourcesUnder(path.dirname(file)), [file]);
    });

    it('a copy of a chats folder anywhere is known by its names: a session file, its subagents in the folder named by its id', async () => {
      const original = writeV38Session(home);
      const copy = path.join(home, 'backup', 'ana');
      fs.cpSync(path.dirname(original), copy, { recursive: true });
      const file = path.join(copy, path.basename(original));
      const nested = path.join(copy, V38_SESSION, `${V38_AGENT}.json`);
      assert.strictEqual(gemini.sourceOfPath(file), file);
      assert.strictEqual(gemini.sourceOfPath(nested), file);
      const r = await ingestFile(store, nested);
      assert.deepStrictEqual(r.sessions, [`gemini:${V38_SESSION}`, `gemini:${V38_SESSION}/agent-${V38_AGENT}`]);
      // A folder named like a session id is a subagents' folder only beside that session's file.
      fs.rmSync(file);
      assert.strictEqual(gemini.sourceOfPath(nested), null);
      assert.strictEqual(gemini.sourceOfPath(path.join(copy, 'notes.json')), null);
    });

    it('a subagent whose parent file is gone is a session of its own, under the parent it names', async () => {
      const file = writeV38Session(home);
      const nested = path.join(path.dirname(file), V38_SESSION, `${V38_AGENT}.json`);
      fs.rmSync(file);
      assert.strictEqual(gemini.sourceOfPath(nested), nested);
      const r = await ingestFile(store, nested);
      assert.deepStrictEqual(r.sessions, [`gemini:${V38_SESSION}/agent-${V38_AGENT}`]);
      assert.strictEqual(lastMeta(store, r.sessions[0])?.parentSessionId, `gemini:${V38_SESSION}`);
    });

    it('a .json session a newer Gemini CLI went on with in .jsonl stands for its successor', async () => {
      const file = writeV38Session(home);
      fs.writeFileSync(
        `${file}l`,
        jsonl([{ sessionId: V38_SESSION, projectHash: sha256(WORKSPACE), startTime: 'x' }, ...(v38Session() as { messages: object[] }).messages]),
      );
      assert.strictEqual(gemini.sourceOfPath(file), `${file}l`);
      const r = await ingestFile(store, file);
      assert.strictEqual(r.file, `${file}l`);
      assert.deepStrictEqual(sourcesUnder(path.dirname(file)), [`${file}l`]);
    });

    it('v0.35: the subagent file beside its parent, with the parent session id, is its child; ingested alone it appends nothing new', async () => {
      const { parent, subagent } = writeV35Session(home);
      const session = `gemini:${V35_SESSION}`;
      const child = `${session}/agent-session-2026-03-01T09-02-d4e5f6a7`;
      const r = await ingestFile(store, parent);
      assert.deepStrictEqual(r.sessions, [session, child]);
      assert.deepStrictEqual(conversation(store, session), ['user: Summarise the repo', 'assistant: It is a VS Code extension.']);
      assert.deepStrictEqual(conversation(store, child), ['user: List the packages', 'assistant: One package.']);
      assert.deepStrictEqual(readLinked(store, session, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
      const alone = await ingestFile(store, subagent);
      assert.deepStrictEqual([alone.sessions, alone.appended], [[child], 0]);
    });

    it('v0.4–v0.24 in the hash-named folder: a compression that went on in a second file is one session, in the order it was said', async () => {
      const files = writeV10Session(home);
      for (const f of files) await ingestFile(store, f);
      const session = `gemini:${V10_SESSION}`;
      assert.deepStrictEqual(
        store.sessions().map((s) => s.sessionId),
        [session],
      );
      assert.deepStrictEqual(conversation(store, session), [
        'user: Explain main.ts',
        'assistant: It starts the server.',
        'user: And the tests?',
        'assistant: There are none.',
      ]);
      assert.deepStrictEqual(usageOf(store, session), { attempts: 2, inputTokens: 1400, outputTokens: 70, cachedTokens: 100 });
      assert.deepStrictEqual(events(store, session, 'gemini/thought').length, 1);
      // No marker in a hash folder and no directories recorded: the folder is not told.
      assert.strictEqual(lastMeta(store, session)?.cwd, undefined);
      // Ingested again, in the other order: nothing new.
      for (const f of [...files].reverse()) assert.strictEqual((await ingestFile(store, f)).appended, 0);
    });

    it('a pretty-printed recording outside the tree is told by its content', async () => {
      const copy = path.join(home, 'exported.json');
      fs.writeFileSync(copy, JSON.stringify(v38Session(), null, 2));
      assert.ok(gemini.recognizes(copy, fs.readFileSync(copy)));
      assert.ok(!gemini.recognizes(copy, Buffer.from('{"type":"user","sessionId":"x"}')));
      const r = await ingestFile(store, copy);
      assert.deepStrictEqual([r.format, r.sessions], ['gemini', [`gemini:${V38_SESSION}`]]);
    });
  });

  describe('damaged and hostile files', () => {
    it('a damaged session file is a TapeFileError naming it; a damaged subagent is counted and its parent still read', async () => {
      const file = writeV38Session(home);
      const broken = path.join(path.dirname(file), 'session-2026-04-03T09-00-eeeeeeee.json');
      fs.writeFileSync(broken, '{"sessionId": "e", "messages": [');
      await assert.rejects(
        ingestFile(store, broken),
        (e: Error) => e instanceof TapeFileError && e.message.startsWith(broken) && /not valid JSON/.test(e.message),
      );
      fs.writeFileSync(path.join(path.dirname(file), V38_SESSION, `${V38_AGENT}.json`), '{"sessionId": ');
      const r = await ingestFile(store, file);
      assert.deepStrictEqual([r.sessions, r.skipped], [[`gemini:${V38_SESSION}`], { 'unreadable/subagent': 1 }]);
      const notGemini = path.join(home, 'other.jsonl');
      fs.writeFileSync(notGemini, '{"type":"user","message":{}}\n');
      await assert.rejects(ingestFile(store, notGemini, 'gemini'), /is not a Gemini CLI chat recording/);
    });

    it('a session file that is a symbolic link to /dev/zero, or a FIFO, is refused with the reason, the tape unchanged', async function () {
      if (process.platform === 'win32') this.skip();
      const chats = path.join(slugProject(home), 'chats');
      const zero = path.join(chats, 'session-2026-08-01T10-00-zzzzzzzz.jsonl');
      fs.symlinkSync('/dev/zero', zero);
      await assert.rejects(ingestFile(store, zero), (e: Error) => e instanceof TapeFileError && /is a character device, not a regular file/.test(e.message));
      const fifo = path.join(chats, 'session-2026-08-01T10-00-ffffffff.json');
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(ingestFile(store, fifo), (e: Error) => e instanceof TapeFileError && /is a FIFO \(named pipe\), not a regular file/.test(e.message));
      assert.deepStrictEqual(store.sessions(), []);
    });

    it('a metadata record naming another session is counted and changes nothing', async () => {
      const records = jsonlRecords();
      const forged = { $set: { sessionId: 'ffffffff-0000-4000-8000-00000000000f', summary: 'forged title' } };
      const r = await ingestFile(store, writeJsonlSession(home, [...records, forged]));
      assert.strictEqual(r.skipped['other-session/$set'], 1);
      assert.strictEqual(lastMeta(store, SESSION)?.title, 'Fix the failing test');
    });
  });

  describe("discovering a workspace's sessions", () => {
    it("names the legacy project folder by the SHA-256 of the workspace path, as Gemini CLI's getProjectHash does", () => {
      // `printf %s /home/me/my.app | sha256sum`
      assert.strictEqual(projectHashOf('/home/me/my.app'), '4f2b2dadf30e0d888238ebf52bd97cad14722c7ed61f6dcf783d636d81ea5145');
    });

    it('lists the sessions of the slug and hash folders newest first with the first prompt; not subagents, copies, successors or other projects', () => {
      const jsonlFile = writeJsonlSession(home);
      const { parent } = writeV35Session(home);
      const v38 = writeV38Session(home);
      const [v10a, v10b] = writeV10Session(home);
      // A v0.29 migration copied the hash folder's files into the slug folder: listed once, from there.
      fs.copyFileSync(v10a, path.join(path.dirname(jsonlFile), path.basename(v10a)));
      const other = path.join(slugProject(home, 'elsewhere', '/srv/elsewhere'), 'chats', 'session-2026-08-02T10-00-99999999.jsonl');
      fs.writeFileSync(
        other,
        jsonl([
          { sessionId: '99999999-0000-4000-8000-000000000009', projectHash: sha256('/srv/elsewhere') },
          { id: 'z', type: 'user', content: 'not ours' },
        ]),
      );
      const mtimes: [string, number][] = [
        [jsonlFile, 5_000],
        [parent, 2_000],
        [v38, 3_000],
        [path.join(path.dirname(jsonlFile), path.basename(v10a)), 1_000],
        [v10b, 1_500],
      ];
      for (const [f, at] of mtimes) fs.utimesSync(f, at, at);
      const found = discoverSessions({ workspace: WORKSPACE, home }).filter((s) => s.format === 'gemini');
      assert.deepStrictEqual(
        found.map((s) => [path.relative(home, s.file), s.firstPrompt]),
        [
          [path.relative(home, jsonlFile), 'Fix the failing test in @a.test.ts'],
          [path.relative(home, v38), 'Where is the config read?'],
          [path.relative(home, parent), 'Summarise the repo'],
          [path.relative(home, v10b), 'And the tests?'],
          [path.relative(home, path.join(path.dirname(jsonlFile), path.basename(v10a))), 'Explain main.ts'],
        ],
      );
    });

    it('finds nothing, without failing, when Gemini CLI has not been used; watches the folder it would create', () => {
      assert.deepStrictEqual(
        discoverSessions({ workspace: WORKSPACE, home }).filter((s) => s.format === 'gemini'),
        [],
      );
      const roots = discoveryRoots({ workspace: WORKSPACE, home });
      assert.ok(roots.includes(path.join(home, '.gemini', 'tmp', 'my-app', 'chats')));
      assert.ok(roots.includes(path.join(home, '.gemini', 'tmp', sha256(WORKSPACE), 'chats')));
    });

    it("answers a changed file of the workspace's folders with its source, and one of another project's with null", () => {
      const file = writeJsonlSession(home);
      const nested = path.join(path.dirname(file), JSONL_SESSION, `${JSONL_AGENT}.jsonl`);
      const places = { workspace: WORKSPACE, home };
      assert.strictEqual(workspaceSourceOf(nested, places), file);
      assert.strictEqual(workspaceSourceOf(file, places), file);
      const [v10] = writeV10Session(home);
      assert.strictEqual(workspaceSourceOf(v10, places), v10);
      const other = path.join(slugProject(home, 'elsewhere', '/srv/elsewhere'), 'chats', JSONL_FILE);
      fs.writeFileSync(other, '');
      assert.strictEqual(workspaceSourceOf(other, places), null);
      assert.strictEqual(workspaceSourceOf(path.join(path.dirname(file), '..', 'logs.json'), places), null);
    });
  });
});
