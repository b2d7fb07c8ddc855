import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import { run as cli } from '../../src/cli/main';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { Entry } from '../../src/tape/entry';
import { linkedChildren } from '../../src/store/subagentLinks';
import { TapeStore } from '../../src/store/tapeStore';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '../support/fakeOpenAiServer';
import { sessionRoots } from './helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const FAKE = { vendor: 'agent-tape-fake' };

/** What the tape holds right now, read the way another process would: a read-only open. */
async function readTape<T>(api: AgentTapeApi, read: (store: TapeStore) => T): Promise<T> {
  const store = await TapeStore.open(await api.workspaceTapeFile(), { readOnly: true });
  try {
    return read(store);
  } finally {
    await store.close();
  }
}

// A chat's forks and subagents (`<chat session>::…`) are not chat threads of their own.
const chatSessions = (store: TapeStore) => store.sessions().filter((s) => s.sessionId.startsWith('chat-') && !s.sessionId.includes('::'));

/** Sends a request to @tape through the Chat view, in the current chat thread. */
async function ask(query: string, modelSelector: vscode.LanguageModelChatSelector = FAKE, attachFiles: vscode.Uri[] = []): Promise<void> {
  await vscode.commands.executeCommand('workbench.action.chat.open', { query: `@tape ${query}`, modelSelector, mode: 'ask', attachFiles });
}

/** The session's turns that have ended, each as the outcome its `turn/end` recorded. */
const endedTurns = (store: TapeStore, sessionId: string): string[] =>
  store
    .entries(sessionId)
    .filter((e) => e.name === 'turn/end')
    .map((e) => (e.payload.data as { outcome: string }).outcome);

const manifests = (entries: readonly Entry[]) =>
  entries
    .filter((e) => e.name === 'view/assembled')
    .map((e) => e.payload.data as { anchorEntryId: number | null; included: { entryId: number | null; role: string }[] });

/** CLI output, as a user would read it. */
async function agentTape(...argv: string[]): Promise<string> {
  let out = '';
  let err = '';
  const code = await cli(argv, { out: (t) => (out += t), err: (t) => (err += t) });
  assert.strictEqual(code, 0, `agent-tape ${argv.join(' ')}: ${err}`);
  return out;
}

describe('@tape in the Chat view', function () {
  let api: AgentTapeApi;
  let sessionId: string;
  const demo = vscode.workspace.workspaceFolders![0].uri.fsPath;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-chat-'));

  /** A new chat thread, and the session its first request creates (retried: a fresh profile may not have picked a model yet). */
  async function newThread(firstQuery: string): Promise<string> {
    await vscode.commands.executeCommand('workbench.action.chat.newChat');
    const before = new Set(await readTape(api, (s) => chatSessions(s).map((c) => c.sessionId)));
    for (let attempt = 1; ; attempt++) {
      await ask(firstQuery);
      try {
        return await until(
          'a new chat session with an ended turn',
          () => readTape(api, (s) => chatSessions(s).find((c) => !before.has(c.sessionId) && endedTurns(s, c.sessionId).length > 0)?.sessionId),
          15_000,
        );
      } catch (e) {
        if (attempt === 3) throw e;
      }
    }
  }

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!;
    api = await ext.activate();
  });
  after(() => fs.rmSync(scratch, { recursive: true, force: true }));

  it('answers a request whose model reads a file: the turn is on the tape, and an export folds to the same transcript', async () => {
    const file = path.join(demo, 'README.md');
    const content = fs.readFileSync(file, 'utf8');
    sessionId = await newThread('tool:read_file {"path":"README.md"}');
    const entries = await readTape(api, (s) => s.entries(sessionId));
    const names = entries.map((e) => e.name);
    for (const name of ['turn/start', 'message/user', 'read_file', 'provider/attempt', 'view/assembled', 'turn/end'])
      assert.ok(names.includes(name), `${name} in ${names.join(', ')}`);
    const call = entries.find((e) => e.kind === 'tool_call')!;
    assert.deepStrictEqual(call.payload.input, { path: 'README.md' });
    const result = entries.find((e) => e.kind === 'tool_result')!;
    assert.strictEqual(result.payload.status, 'ok');
    assert.strictEqual(manifests(entries).length, 2, 'one manifest per request: the call, then the answer');
    assert.strictEqual(names.filter((n) => n === 'provider/attempt').length, 2);
    const answer = entries.filter((e) => e.name === 'message/assistant' && e.payload.status === 'sent').at(-1)!;
    assert.ok(
      String(answer.payload.content).startsWith('done: ') && String(answer.payload.content).includes(content.split('\n')[0]),
      String(answer.payload.content),
    );
    assert.deepStrictEqual(await readTape(api, (s) => endedTurns(s, sessionId)), ['answer']);

    const exported = path.join(scratch, 'session.tape.jsonl');
    const receipt = await vscode.commands.executeCommand<{ file: string; entries: number; sessionId: string }>(
      'agentTape.exportSession',
      vscode.Uri.file(exported),
    );
    assert.deepStrictEqual(receipt, { file: exported, entries: entries.length, sessionId });
    const fromExport = await agentTape('view', exported, '--session', sessionId);
    assert.strictEqual(fromExport, await agentTape('view', await api.workspaceTapeFile(), '--session', sessionId));
    assert.ok(fromExport.includes('done: '), fromExport);

    // The same session as OpenTelemetry spans: its turn, its two requests and its tool call, no content.
    const spansFile = path.join(scratch, 'session.otlp.json');
    const spansReceipt = await vscode.commands.executeCommand<{ file: string; sessionId: string }>(
      'agentTape.exportSessionOtlp',
      vscode.Uri.file(spansFile),
      sessionId,
    );
    assert.deepStrictEqual(spansReceipt, { file: spansFile, sessionId });
    const otlp = JSON.parse(fs.readFileSync(spansFile, 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: { name: string; attributes: { key: string; value: { stringValue?: string } }[] }[] }[] }[];
    };
    const spans = otlp.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans));
    const operations = spans.map((s) => s.attributes.find((a) => a.key === 'gen_ai.operation.name')?.value.stringValue).sort();
    assert.deepStrictEqual(operations, ['chat', 'chat', 'execute_tool', 'invoke_agent']);
    assert.ok(!fs.readFileSync(spansFile, 'utf8').includes(content.split('\n')[0]), 'no file content without --content');
  });

  it('/compact, then a question: one compaction anchor, and the next request starts from it', async () => {
    await ask('/compact');
    const anchor = await until('the compaction anchor', () => readTape(api, (s) => s.entries(sessionId).find((e) => e.name === 'compaction/manual')));
    await ask('what now?');
    await until('the second turn', () => readTape(api, (s) => (endedTurns(s, sessionId).length === 2 ? true : undefined)));
    const entries = await readTape(api, (s) => s.entries(sessionId));
    assert.strictEqual(entries.filter((e) => e.name.startsWith('compaction/')).length, 1);
    const last = manifests(entries).at(-1)!;
    assert.strictEqual(last.anchorEntryId, anchor.entryId);
    assert.ok(
      last.included.every((i) => i.entryId === null || i.entryId > anchor.entryId || entries[i.entryId - 1].kind === 'system'),
      'nothing from before the anchor but the system prompt',
    );
  });

  it('/handoff phase-2 notes, then a question: the next request holds the handoff checkpoint and no earlier history', async () => {
    await ask('/handoff phase-2 the parser is done; next, the CLI');
    const anchor = await until('the handoff anchor', () => readTape(api, (s) => s.entries(sessionId).find((e) => e.name === 'handoff/phase-2')));
    assert.deepStrictEqual(anchor.payload.state, { summary: 'the parser is done; next, the CLI' });
    await ask('go on');
    await until('the third turn', () => readTape(api, (s) => (endedTurns(s, sessionId).length === 3 ? true : undefined)));
    const entries = await readTape(api, (s) => s.entries(sessionId));
    const last = manifests(entries).at(-1)!;
    assert.strictEqual(last.anchorEntryId, anchor.entryId);
    assert.ok(
      last.included.some((i) => i.entryId === null),
      'the checkpoint, rendered from the anchor',
    );
    assert.ok(last.included.every((i) => i.entryId === null || i.entryId > anchor.entryId || entries[i.entryId - 1].kind === 'system'));
  });

  it('a thread whose tape is gone is rebuilt once from the chat history, then goes on', async () => {
    const file = await api.workspaceTapeFile();
    await api.closeWorkspaceTape();
    for (const f of fs.readdirSync(path.dirname(file))) fs.rmSync(path.join(path.dirname(file), f), { recursive: true, force: true });
    await ask('still there?');
    await until('the rebuilt session to answer', () => readTape(api, (s) => (endedTurns(s, sessionId).length === 1 ? true : undefined)));
    const entries = await readTape(api, (s) => s.entries(sessionId));
    const backfilled = entries.filter((e) => e.name === 'session/backfilled');
    assert.strictEqual(backfilled.length, 1);
    // The chat history holds the three plain requests (the slash commands are not conversation).
    assert.deepStrictEqual(backfilled[0].payload.data, { source: 'vscode-chat-history', turns: 3 });
    const users = entries.filter((e) => e.name === 'message/user').map((e) => e.payload.content);
    assert.deepStrictEqual(users, ['tool:read_file {"path":"README.md"}', 'what now?', 'go on', 'still there?']);
    await ask('and again?');
    await until('the next turn', () => readTape(api, (s) => (endedTurns(s, sessionId).length === 2 ? true : undefined)));
    assert.strictEqual((await readTape(api, (s) => s.entries(sessionId))).filter((e) => e.name === 'session/backfilled').length, 1, 'backfilled once');
  });

  it('an attached file goes into the user message on the tape, under its workspace path', async () => {
    const readme = vscode.Uri.file(path.join(demo, 'README.md'));
    await ask('what is this file about?', FAKE, [readme]);
    const user = await until('the attachment on the tape', () =>
      readTape(api, (s) => s.entries(sessionId).find((e) => e.name === 'message/user' && String(e.payload.content).startsWith('what is this file about?'))),
    );
    const first = fs.readFileSync(readme.fsPath, 'utf8').split('\n')[0];
    assert.ok(String(user.payload.content).includes(`Attached: README.md\n\`\`\`\n${first}`), String(user.payload.content));
  });

  it("offers another extension's tool named in agentTape.extraTools, and runs it through VS Code", async () => {
    const config = vscode.workspace.getConfiguration('agentTape');
    await config.update('extraTools', ['fake_upper', 'no_such_tool'], vscode.ConfigurationTarget.Global);
    try {
      const id = await newThread('tool:fake_upper {"text":"shout this"}');
      const entries = await readTape(api, (s) => s.entries(id));
      assert.deepStrictEqual(
        entries.filter((e) => e.kind === 'tool_call').map((e) => [e.name, e.payload.input]),
        [['fake_upper', { text: 'shout this' }]],
      );
      const result = entries.find((e) => e.kind === 'tool_result')!;
      assert.deepStrictEqual([result.payload.status, result.payload.output], ['ok', 'SHOUT THIS']);
      assert.strictEqual(entries.filter((e) => e.name === 'message/assistant').at(-1)!.payload.content, 'done: SHOUT THIS');
    } finally {
      await config.update('extraTools', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('run_subagent: the child reads a file, the parent gets its answer, the child is linked and nested under the parent, and a linked search stops at its frozen head', async () => {
    const rel = `subagent-test-${process.pid}.txt`;
    fs.writeFileSync(path.join(demo, rel), 'quokka marmalade\n');
    try {
      // The fake model calls the tool its last message ends with: the parent run_subagent, the child read_file.
      const parent = await newThread(`tool:run_subagent ${JSON.stringify({ task: `tool:read_file ${JSON.stringify({ path: rel })}`, tools: ['read_file'] })}`);
      const seen = await readTape(api, (s) => {
        const [link] = linkedChildren(s, parent);
        const childId = link?.childSessionId ?? '';
        return { link, parent: s.entries(parent), child: s.entries(childId), childTurns: endedTurns(s, childId), childHead: s.headEntryId(childId) };
      });
      const result = seen.parent.find((e) => e.kind === 'tool_result' && e.name === 'run_subagent');
      assert.deepStrictEqual([result?.payload.status, result?.payload.output], ['ok', 'done: quokka marmalade\n'], "the child's answer is the tool result");
      assert.strictEqual(seen.parent.filter((e) => e.name === 'message/assistant').at(-1)?.payload.content, 'done: done: quokka marmalade\n');
      assert.ok(seen.link, 'the parent links the child');
      const child = seen.link.childSessionId;
      assert.ok(child.startsWith(`${parent}::subagent::`), child);
      assert.strictEqual(seen.link.outcome, 'completed');
      assert.strictEqual(seen.link.childHeadEntryId, seen.childHead);
      const read = seen.child.find((e) => e.kind === 'tool_result');
      assert.deepStrictEqual([read?.name, read?.payload.status, read?.payload.output], ['read_file', 'ok', 'quokka marmalade\n']);
      assert.deepStrictEqual(seen.childTurns, ['answer']);

      const nested = await until('the child under its parent in the sessions view', async () => {
        const roots = await sessionRoots(api.sessionsTree);
        return roots.find((n) => n.sessionId === parent)?.children.find((c) => c.sessionId === child);
      });
      assert.deepStrictEqual([nested.relation, nested.state], ['subagent', 'linked']);

      // An entry the child gets after its link is past the frozen head: a linked search never returns it.
      const file = await api.workspaceTapeFile();
      await api.closeWorkspaceTape();
      const writer = await TapeStore.open(file);
      const late = await writer.append(child, {
        kind: 'event',
        name: 'test/late',
        payload: { name: 'test/late', data: { text: 'quokka written after the link' } },
      });
      await writer.close();
      await ask('tool:tape_search {"query":"quokka","scope":"linked"}');
      await until('the search turn', () => readTape(api, (s) => (endedTurns(s, parent).length === 2 ? true : undefined)));
      const search = (await readTape(api, (s) => s.entries(parent))).filter((e) => e.kind === 'tool_result' && e.name === 'tape_search').at(-1);
      assert.strictEqual(search?.payload.status, 'ok', String(search?.payload.output));
      const hits = [...String(search?.payload.output).matchAll(/^#(\d+) in (\S+) /gm)].map((m) => ({ entryId: Number(m[1]), sessionId: m[2] }));
      assert.ok(hits.length > 0, String(search?.payload.output));
      for (const hit of hits) {
        assert.strictEqual(hit.sessionId, child);
        assert.ok(hit.entryId <= seen.childHead && hit.entryId !== late.entry.entryId, `#${hit.entryId} is within the frozen head ${seen.childHead}`);
      }
    } finally {
      fs.rmSync(path.join(demo, rel), { force: true });
    }
  });

  it("agentTape.subagentMaxRounds is the child's budget: a child that needs more requests is linked as failed", async () => {
    const config = vscode.workspace.getConfiguration('agentTape');
    await config.update('subagentMaxRounds', 1, vscode.ConfigurationTarget.Global);
    try {
      // The child calls read_file in its first request and would answer in a second, which the budget does not allow.
      const parent = await newThread(`tool:run_subagent ${JSON.stringify({ task: 'tool:read_file {"path":"README.md"}', tools: ['read_file'] })}`);
      const link = await readTape(api, (s) => linkedChildren(s, parent)[0]);
      assert.strictEqual(link?.outcome, 'failed');
      const childRequests = await readTape(api, (s) => s.entries(link.childSessionId).filter((e) => e.name === 'view/assembled').length);
      assert.strictEqual(childRequests, 1);
    } finally {
      await config.update('subagentMaxRounds', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('/fork, then a question: the thread goes on in the fork, which reads the parent through; Merge Fork brings it back', async () => {
    const parent = await newThread('the walrus question');
    const parentHead = await readTape(api, (s) => s.headEntryId(parent));
    await ask('/fork');
    const fork = await until('the fork session', () => readTape(api, (s) => s.sessions().find((x) => x.sessionId.startsWith(`${parent}::fork::`))?.sessionId));
    await ask('the fork question');
    await until('a turn in the fork', () => readTape(api, (s) => (endedTurns(s, fork).length === 1 ? true : undefined)));
    const seen = await readTape(api, (s) => ({ parentHead: s.headEntryId(parent), fork: s.entries(fork) }));
    assert.strictEqual(seen.parentHead, parentHead, 'the parent is unchanged');
    assert.deepStrictEqual(seen.fork[1].payload.state, { parentSessionId: parent, parentHeadEntryId: parentHead, forkId: fork.split('::fork::')[1] });
    // The fork's request holds the parent's question, read through at its position in the parent.
    const included = manifests(seen.fork)
      .at(-1)!
      .included.map((i) => i.entryId);
    const parentQuestion = await readTape(api, (s) => s.entries(parent).find((e) => e.name === 'message/user')!.entryId);
    assert.ok(included.includes(parentQuestion), `#${parentQuestion} in ${included.join(', ')}`);
    assert.deepStrictEqual(
      seen.fork.filter((e) => e.name === 'message/user').map((e) => e.payload.content),
      ['the fork question'],
    );

    const receipt = await vscode.commands.executeCommand<{ mergedCount: number; parentMovedOn: boolean }>('agentTape.mergeFork', fork);
    assert.deepStrictEqual([receipt.mergedCount, receipt.parentMovedOn], [seen.fork.length - 2, false]);
    const merged = await readTape(api, (s) => s.entries(parent, { fromEntryId: parentHead + 1 }));
    assert.deepStrictEqual(merged.at(-1)?.name, 'fork/merge');
    assert.ok(merged.slice(0, -1).every((e) => (e.meta.mergedFrom as { sessionId: string }).sessionId === fork));
  });

  describe('with the own OpenAI-compatible provider', () => {
    let server: FakeOpenAiServer | undefined;
    const config = () => vscode.workspace.getConfiguration('agentTape.provider');
    const OWN = { vendor: 'agent-tape' };

    async function useServer(replies: Parameters<typeof startFakeOpenAiServer>[0], baseUrl?: string): Promise<void> {
      server = await startFakeOpenAiServer(replies, 60_000);
      await config().update('baseUrl', baseUrl ?? server.baseURL, vscode.ConfigurationTarget.Global);
      await config().update('models', [{ id: 'scripted', contextWindow: 16000 }], vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentTape.setApiKey', 'sk-chat-test');
      await until('the own model in the picker', async () => ((await vscode.lm.selectChatModels(OWN)).length > 0 ? true : undefined));
    }

    afterEach(async () => {
      await server?.close();
      server = undefined;
    });
    after(async () => {
      await config().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
      await config().update('models', undefined, vscode.ConfigurationTarget.Global);
      await vscode.commands.executeCommand('agentTape.setApiKey', '');
    });

    it('cancel mid-stream: the partial text is on the tape with status error, and the next request works', async () => {
      const slow = { stream: Array.from({ length: 200 }, (_, i) => ({ text: `word${i} ` })), chunkDelayMs: 50 };
      await useServer([slow, { stream: [{ text: 'fine again' }] }]);
      await vscode.commands.executeCommand('workbench.action.chat.newChat');
      const before = new Set(await readTape(api, (s) => chatSessions(s).map((c) => c.sessionId)));
      await ask('write a long answer', OWN);
      const id = await until('streamed text on the tape', () =>
        readTape(
          api,
          (s) =>
            chatSessions(s).find(
              (c) => !before.has(c.sessionId) && s.entries(c.sessionId).some((e) => e.name === 'message/assistant' && e.payload.status === 'pending'),
            )?.sessionId,
        ),
      );
      await vscode.commands.executeCommand('workbench.action.chat.cancel');
      await until('the cancelled turn', () => readTape(api, (s) => (endedTurns(s, id).length === 1 ? true : undefined)));
      let entries = await readTape(api, (s) => s.entries(id));
      assert.deepStrictEqual(await readTape(api, (s) => endedTurns(s, id)), ['cancelled']);
      const partial = entries.filter((e) => e.name === 'message/assistant').at(-1)!;
      assert.strictEqual(partial.payload.status, 'error');
      // As many words as arrived before the cancel: at least the one a pending revision showed.
      assert.match(String(partial.payload.content), /^word0 (word\d+ )*$/);
      assert.ok(!String(partial.payload.content).includes('word199'), 'cut short');
      await ask('are you there?', OWN);
      await until('the next turn', () => readTape(api, (s) => (endedTurns(s, id).length === 2 ? true : undefined)));
      entries = await readTape(api, (s) => s.entries(id));
      assert.deepStrictEqual(await readTape(api, (s) => endedTurns(s, id)), ['cancelled', 'answer']);
      assert.strictEqual(entries.filter((e) => e.name === 'message/assistant').at(-1)!.payload.content, 'fine again');
    });

    for (const [what, replies, baseUrl, expected] of [
      ['a 401', [{ status: 401, body: { error: { message: 'Incorrect API key provided' } } }], undefined, /refused the credentials/],
      ['an unreachable server', [], 'http://127.0.0.1:9/v1', /cannot be reached/],
    ] as const) {
      it(`${what} ends the turn with a clear error on the tape`, async () => {
        await useServer([...replies], baseUrl);
        await vscode.commands.executeCommand('workbench.action.chat.newChat');
        const before = new Set(await readTape(api, (s) => chatSessions(s).map((c) => c.sessionId)));
        await ask('hello', OWN);
        const id = await until(
          'the failed turn',
          () => readTape(api, (s) => chatSessions(s).find((c) => !before.has(c.sessionId) && endedTurns(s, c.sessionId).length > 0)?.sessionId),
          60_000,
        );
        const entries = await readTape(api, (s) => s.entries(id));
        assert.deepStrictEqual(await readTape(api, (s) => endedTurns(s, id)), ['provider_error']);
        const error = entries.find((e) => e.name === 'error/provider')!;
        assert.match(String(error.payload.message), expected);
        assert.ok(!JSON.stringify(entries).includes('sk-chat-test'), 'the key never reaches the tape');
      });
    }
  });
});
