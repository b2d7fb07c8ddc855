import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { cwdOfWorkspaceYaml } from '../../../src/ingest/copilotCli/workspaceYaml';
import { FollowedTranscripts } from '../../../src/ingest/follow';
import { ingestFile } from '../../../src/ingest/ingest';
import { discoverSessions, discoveryRoots, workspaceSourceOf } from '../../../src/ingest/sessionDiscovery';
import { sourcesIn } from '../../../src/ingest/sourcesUnder';
import { TapeFileError } from '../../../src/store/errors';
import { childrenOf } from '../../../src/store/forks';
import { readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { calls, conversation } from './foldedSession';

const ID = '11111111-2222-4333-8444-555555555555';
const SESSION = `copilot-cli:${ID}`;
const WORKSPACE = '/home/me/app';

let seq = 0;
/** A Copilot CLI event as its log holds it. */
const ev = (type: string, data: object, extra: object = {}) => ({
  type,
  data,
  id: `00000000-0000-4000-8000-${String(++seq).padStart(12, '0')}`,
  timestamp: new Date(Date.UTC(2026, 11, 1, 10, 0, seq)).toISOString(),
  parentId: null,
  ...extra,
});
const jsonl = (records: readonly object[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';
const start = (sessionId = ID) =>
  ev('session.start', { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: '1.0.102', selectedModel: 'gpt-4.1', context: { cwd: WORKSPACE } });
const usage = (u: object, extra: object = {}) => ev('session.usage_record', { usage: { model: 'gpt-4.1', ...u } }, extra);

describe('Copilot CLI sessions (copilot-cli)', function () {
  this.timeout(20_000);
  let home: string;
  let store: TapeStore;
  beforeEach(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-copilot-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  /** A session folder under `~/.copilot/session-state/`, its log and workspace.yaml. */
  const writeSession = (records: readonly object[], opts: { id?: string; cwd?: string; mtime?: number; text?: string } = {}): string => {
    const folder = path.join(home, '.copilot', 'session-state', opts.id ?? ID);
    fs.mkdirSync(folder, { recursive: true });
    const log = path.join(folder, 'events.jsonl');
    fs.writeFileSync(log, opts.text ?? jsonl(records));
    fs.writeFileSync(path.join(folder, 'workspace.yaml'), `id: ${opts.id ?? ID}\ncwd: ${opts.cwd ?? WORKSPACE}\nsummary_count: 0\n`);
    if (opts.mtime !== undefined) fs.utimesSync(log, opts.mtime, opts.mtime);
    return log;
  };
  const named = (sessionId: string, name: string) =>
    store
      .entries(sessionId)
      .filter((e) => e.kind === 'event' && e.name === name)
      .map((e) => e.payload.data as Record<string, unknown>);

  it('maps prompts, answers, a failed and a user-run tool, reasoning, notices; counts the rest by type', async () => {
    const log = writeSession([
      start(),
      ev('user.message', { content: 'Run the tests', transformedContent: '<current_datetime>…</current_datetime>\n\nRun the tests' }),
      ev('system.message', { role: 'system', content: 'You are the GitHub Copilot CLI' }),
      ev('assistant.turn_start', { turnId: '0' }),
      ev('assistant.message', {
        messageId: 'm1',
        content: 'Running them.',
        model: 'gpt-5',
        reasoningText: 'The tests are in test/.',
        toolRequests: [{ toolCallId: 'c1', name: 'bash', arguments: { command: 'npm test' } }],
      }),
      ev('tool.execution_start', { toolCallId: 'c1', toolName: 'bash', arguments: { command: 'npm test' } }),
      ev('tool.execution_complete', { toolCallId: 'c1', success: false, error: { message: 'exit code 1', code: 'failure' } }),
      ev('assistant.reasoning', { reasoningId: 'r1', content: 'A test fails.' }),
      ev('tool.execution_start', { toolCallId: 'u1', toolName: 'bash', arguments: { command: 'ls' } }),
      ev('tool.execution_complete', { toolCallId: 'u1', success: true, result: { content: 'a.txt', detailedContent: 'a.txt\n' } }),
      ev('session.warning', { warningType: 'quota', message: 'low' }),
      ev('hook.start', { hookType: 'preToolUse' }),
      ev('mystery.kind', {}),
      ev('assistant.message', { content: 'no id' }),
    ]);
    const r = await ingestFile(store, log);
    assert.strictEqual(r.format, 'copilot-cli');
    assert.deepStrictEqual(r.sessions, [SESSION]);
    assert.deepStrictEqual(r.skipped, {
      'assistant.turn_start': 1,
      'tool.execution_start': 1,
      'hook.start': 1,
      'mystery.kind': 1,
      'invalid/assistant.message': 1,
    });
    assert.deepStrictEqual(conversation(store, SESSION), ['user: Run the tests', 'assistant: Running them.']);
    assert.deepStrictEqual(calls(store, SESSION), [
      ['c1', 'bash', 'error', 'exit code 1'],
      ['u1', 'bash', 'ok', 'a.txt'],
    ]);
    assert.deepStrictEqual(
      named(SESSION, 'copilot-cli/reasoning').map((d) => d.content),
      ['The tests are in test/.', 'A test fails.'],
    );
    assert.deepStrictEqual(named(SESSION, 'copilot-cli/session.warning'), [{ warningType: 'quota', message: 'low' }]);
    assert.deepStrictEqual(named(SESSION, 'copilot-cli/system.message').length, 1);
    const meta = named(SESSION, 'session/meta').at(-1);
    assert.deepStrictEqual(meta, { agent: 'copilot-cli', model: 'gpt-5', cwd: WORKSPACE, source: log, title: 'Run the tests' });
  });

  it("files a subagent's inline events as a child session linked after the call that spawned it", async () => {
    const agent = { agentId: 'agent-7' };
    const log = writeSession([
      start(),
      ev('user.message', { content: 'Review it' }),
      ev('assistant.message', { messageId: 'm1', content: '', toolRequests: [{ toolCallId: 't1', name: 'task', arguments: { prompt: 'SUB' } }] }),
      ev(
        'subagent.started',
        { toolCallId: 't1', agentName: 'explore', agentDisplayName: 'reviewer', agentDescription: 'Review the fix', model: 'gpt-4.1-mini' },
        agent,
      ),
      ev('user.message', { content: 'SUB', source: 'agent-x' }, agent),
      ev('assistant.message', { messageId: 'm2', content: 'Fine.', toolRequests: [] }, agent),
      usage({ inputTokens: 100, outputTokens: 10 }, agent),
      ev('tool.execution_complete', { toolCallId: 't1', success: true, result: { content: 'Fine.' } }),
      ev('subagent.completed', { toolCallId: 't1', agentName: 'explore', totalTokens: 110 }, agent),
      ev('user.message', { content: 'orphan' }, { agentId: 'agent-9' }),
      ev('user.message', { content: 'bad' }, { agentId: '../x' }),
    ]);
    const r = await ingestFile(store, log);
    const child = `${SESSION}/agent-agent-7`;
    const orphan = `${SESSION}/agent-agent-9`;
    assert.deepStrictEqual([...r.sessions].sort(), [SESSION, child, orphan].sort());
    assert.deepStrictEqual(r.skipped, { 'invalid/agentId/user.message': 1 });
    assert.deepStrictEqual(conversation(store, child), ['user: SUB', 'assistant: Fine.']);
    assert.deepStrictEqual(calls(store, SESSION), [['t1', 'task', 'ok', 'Fine.']]);
    assert.deepStrictEqual(
      store
        .entries(SESSION)
        .filter((e) => e.name !== 'session/start')
        .map((e) => (e.kind === 'event' ? e.name : e.kind)),
      [
        'session/meta',
        'session/title',
        'copilot-cli/session.start',
        'message',
        'message',
        'tool_call',
        'subagent/linked',
        'tool_result',
        'copilot-cli/subagent.completed',
        'subagent/linked',
      ],
    );
    assert.deepStrictEqual(
      childrenOf(store, SESSION)
        .map((c) => c.sessionId)
        .sort(),
      [child, orphan].sort(),
    );
    const { childSessionId, agentId, toolCallId, agentName } = named(SESSION, 'subagent/linked')[0];
    assert.deepStrictEqual(
      { childSessionId, agentId, toolCallId, agentName },
      { childSessionId: child, agentId: 'agent-7', toolCallId: 't1', agentName: 'explore' },
    );
    const meta = named(child, 'session/meta').at(-1);
    assert.deepStrictEqual(meta, {
      agent: 'copilot-cli',
      model: 'gpt-4.1-mini',
      cwd: WORKSPACE,
      source: log,
      title: 'Review the fix',
      parentSessionId: SESSION,
    });
    assert.strictEqual(named(child, ATTEMPT_EVENT).length, 1);
    assert.strictEqual(named(SESSION, ATTEMPT_EVENT).length, 0);
  });

  it("keeps each request's tokens as the tape counts them, with Copilot CLI's own figures; a compaction's request and summary", async () => {
    const log = writeSession([
      start(),
      ev('user.message', { content: 'Go' }),
      usage({ inputTokens: 1200, outputTokens: 90, cacheReadTokens: 300, cacheWriteTokens: 40, reasoningTokens: 25 }),
      ev('assistant.message', { messageId: 'm1', content: 'Done.' }),
      ev('session.compaction_start', { trigger: 'auto' }),
      ev('session.compaction_complete', {
        success: true,
        trigger: 'auto',
        summaryContent: '<overview>Go was done.</overview>',
        compactionTokensUsed: { requestCount: 1, inputTokens: 800, outputTokens: 60, cacheReadTokens: 100, cacheWriteTokens: 0, model: 'gpt-4.1' },
      }),
      ev('session.compaction_complete', { success: false, error: 'context too small' }),
      ev('user.message', { content: 'Next' }),
    ]);
    const r = await ingestFile(store, log);
    assert.deepStrictEqual(r.skipped, { 'session.compaction_start': 1 });
    assert.deepStrictEqual(
      named(SESSION, ATTEMPT_EVENT).map((d) => d.usage),
      [
        {
          inputTokens: 1200,
          outputTokens: 90,
          cachedTokens: 300,
          cacheCreationTokens: 40,
          reasoningTokens: 25,
          inputIncludesCached: true,
          reported: { input: 1200, output: 90, cacheRead: 300, cacheWrite: 40, reasoning: 25 },
        },
        {
          inputTokens: 800,
          outputTokens: 60,
          cachedTokens: 100,
          cacheCreationTokens: 0,
          reasoningTokens: 0,
          inputIncludesCached: true,
          reported: { input: 800, output: 60, cacheRead: 100, cacheWrite: 0 },
        },
      ],
    );
    const anchors = store.entries(SESSION).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    assert.deepStrictEqual(
      anchors.map((a) => [a.name, (a.payload.state as { summary: string }).summary]),
      [['compaction/auto', '<overview>Go was done.</overview>']],
    );
    assert.deepStrictEqual(named(SESSION, 'copilot-cli/session.compaction_complete'), [{ success: false, error: 'context too small' }]);
    // The summary stands for what came before it: its cursor is past the answer and before the next prompt.
    const seqOf = (text: string) => store.entries(SESSION).find((e) => e.kind === 'message' && e.payload.content === text)?.payload.orderSeq as number;
    const cursor = (anchors[0].payload.state as { cursorOrderSeq: number }).cursorOrderSeq;
    assert.ok(seqOf('Done.') < cursor && cursor < seqOf('Next'), `${seqOf('Done.')} < ${cursor} < ${seqOf('Next')}`);
  });

  it('leaves a torn last line for the next run, counts lines that are not events, and refuses a log that is not a regular file', async () => {
    const records = [start(), ev('user.message', { content: 'One' }), ev('assistant.message', { messageId: 'm1', content: 'Two' })];
    const log = writeSession([], { text: jsonl(records.slice(0, 2)) + '[1]\n' + JSON.stringify(records[2]).slice(0, 20) });
    const r = await ingestFile(store, log);
    assert.strictEqual(r.tornLastLine, true);
    assert.deepStrictEqual(r.skipped, { 'invalid/event': 1 });
    assert.deepStrictEqual(conversation(store, SESSION), ['user: One']);

    const fifoDir = path.join(home, '.copilot', 'session-state', '22222222-2222-4333-8444-555555555555');
    fs.mkdirSync(fifoDir, { recursive: true });
    fs.symlinkSync('/dev/zero', path.join(fifoDir, 'events.jsonl'));
    await assert.rejects(ingestFile(store, path.join(fifoDir, 'events.jsonl')), TapeFileError);
  });

  it('takes the session id from session.start, else its folder; a log naming neither is refused', async () => {
    const other = '33333333-2222-4333-8444-555555555555';
    const log = writeSession([start(other), ev('user.message', { content: 'Hi' })]);
    assert.deepStrictEqual((await ingestFile(store, log)).sessions, [`copilot-cli:${other}`]);
    const loose = path.join(home, 'copy.jsonl');
    fs.writeFileSync(loose, jsonl([ev('user.message', { content: 'Hi' })]));
    await assert.rejects(ingestFile(store, loose, 'copilot-cli'), /names no Copilot CLI session/);
    fs.writeFileSync(loose, jsonl([start(), ev('user.message', { content: 'Hi' })]));
    // A renamed copy is told by its first line, in a folder walk.
    assert.deepStrictEqual(
      sourcesIn(home)
        .sources.filter((f) => f.source === loose)
        .map((f) => f.format),
      ['copilot-cli'],
    );
    assert.deepStrictEqual((await ingestFile(store, loose, 'copilot-cli')).sessions, [SESSION]);
  });

  it('reads the folder from workspace.yaml as Copilot CLI quotes it', () => {
    assert.strictEqual(cwdOfWorkspaceYaml('id: x\ncwd: /home/me/app\n'), '/home/me/app');
    // A long line (blanks inside the path and before a comment) reads the same; the parse is linear in it (workspaceYaml.ts).
    const blanks = ' '.repeat(60_000);
    assert.strictEqual(cwdOfWorkspaceYaml(`cwd: /a${blanks}b${blanks}#c\n`), `/a${blanks}b`);
    assert.strictEqual(cwdOfWorkspaceYaml("cwd: '/home/me/it''s here'\n"), "/home/me/it's here");
    assert.strictEqual(cwdOfWorkspaceYaml('cwd: "/home/me/a\\"b: c"\n'), '/home/me/a"b: c');
    assert.strictEqual(cwdOfWorkspaceYaml('cwd: /home/me/app # the app\n'), '/home/me/app');
    assert.strictEqual(cwdOfWorkspaceYaml('name: cwd: /x\n'), undefined);
  });

  it("discovers the workspace's sessions newest first by their first prompt, and follows their folder", () => {
    const older = writeSession([start(), ev('user.message', { content: '/compact' }), ev('user.message', { content: 'Fix the\nbuild' })], { mtime: 1_000 });
    const newerId = '44444444-2222-4333-8444-555555555555';
    const newer = writeSession([start(newerId)], { id: newerId, mtime: 2_000 });
    writeSession([start('55555555-2222-4333-8444-555555555555')], { id: '55555555-2222-4333-8444-555555555555', cwd: '/elsewhere', mtime: 3_000 });
    const places = { workspace: WORKSPACE, home };
    assert.deepStrictEqual(
      discoverSessions(places)
        .filter((s) => s.format === 'copilot-cli')
        .map((s) => [s.file, s.firstPrompt]),
      [
        [newer, null],
        [older, 'Fix the build'],
      ],
    );
    const state = path.join(home, '.copilot', 'session-state');
    assert.ok(discoveryRoots(places).includes(state));
    assert.strictEqual(workspaceSourceOf(path.join(path.dirname(older), 'workspace.yaml'), places), older);
    assert.strictEqual(workspaceSourceOf(path.join(state, '55555555-2222-4333-8444-555555555555', 'events.jsonl'), places), null);
    assert.strictEqual(workspaceSourceOf(path.join(path.dirname(older), 'checkpoints', 'index.md'), places), null);
  });

  it('followed as it grows, the tape ends as a one-shot ingest of the whole log', async () => {
    const agent = { agentId: 'a1' };
    const records = [
      start(),
      ev('user.message', { content: 'Go' }),
      ev('assistant.message', { messageId: 'm1', content: '', toolRequests: [{ toolCallId: 't1', name: 'task', arguments: {} }] }),
      ev('subagent.started', { toolCallId: 't1', agentName: 'explore', agentDescription: 'Look', model: 'gpt-4.1' }, agent),
      ev('user.message', { content: 'Look' }, agent),
      ev('assistant.message', { messageId: 'm2', content: 'Seen.', model: 'gpt-4.1' }, agent),
      ev('tool.execution_complete', { toolCallId: 't1', success: true, result: { content: 'Seen.' } }),
      ev('assistant.message', { messageId: 'm3', content: 'All done.', model: 'gpt-4.1' }),
    ];
    const log = writeSession([], { text: '' });
    const followed = new FollowedTranscripts();
    const appended: number[] = [];
    for (const [from, to] of [
      [0, 2],
      [2, 5],
      [5, 8],
    ]) {
      fs.appendFileSync(log, jsonl(records.slice(from, to)));
      appended.push((await followed.ingest(store, log)).appended);
    }
    assert.ok(
      appended.every((n) => n > 0),
      `${appended.join(', ')}`,
    );
    // The link is frozen again at the head the child has each time it grew: the last one is sound.
    const child = `${SESSION}/agent-a1`;
    assert.deepStrictEqual(readLinked(store, SESSION, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
    const fresh = await TapeStore.inMemory();
    try {
      await ingestFile(fresh, log);
      const tape = (s: TapeStore) =>
        s
          .sessions()
          .map((x) => x.sessionId)
          .sort()
          .map((id) =>
            s
              .entries(id)
              .filter((e) => e.name !== 'subagent/linked')
              .map((e) => [e.kind, e.name, e.provenanceKey]),
          );
      assert.deepStrictEqual(tape(store), tape(fresh));
    } finally {
      await fresh.close();
    }
  });
});
