import { SUBAGENT_LINKED, SUBAGENT_START } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession, defaultTools } from '../../../../src/agent/agentSession';
import { OpenTape } from '../../../../src/agent/session/openTape';
import { SubagentRunner } from '../../../../src/agent/subagent/subagentRunner';
import { ProviderError } from '../../../../src/agent/model/providerError';
import { ScriptedModel, type ScriptedStep } from '../../../../src/agent/model/scriptedModel';
import type { SessionEvent, TurnOutcome } from '../../../../src/agent/turnEvent';
import { linkedChildren, readLinked, searchScoped } from '../../../../src/store/subagentLinks';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { NewEntry } from '../../../../src/tape/entry';
import { subagentStartState } from '../../../../src/tape/fork';
import { TempWorkspace } from '../tools/fixture';

const PARENT = 'parent';
const NOTES = 'the launch moved to Tuesday\n';

type SubagentEvent = Extract<SessionEvent, { type: 'subagent' }>;

interface Run {
  outcome: TurnOutcome;
  events: SessionEvent[];
  model: ScriptedModel;
}

const callSubagent = (args: Record<string, unknown>): ScriptedStep[] => [{ toolCall: { id: 'call-sub', name: 'run_subagent', arguments: args } }];
const callTool = (id: string, name: string, args: Record<string, unknown>): ScriptedStep[] => [{ toolCall: { id, name, arguments: args } }];

describe('run_subagent', () => {
  let dir: string;
  let store: TapeStore;
  let ws: TempWorkspace;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-subagent-'));
    store = await TapeStore.open(path.join(dir, 'sub.tape.sqlite'));
    ws = new TempWorkspace({ 'notes.txt': NOTES });
  });
  afterEach(async () => {
    await store.close();
    ws.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function run(responses: ScriptedStep[][], opts: { subagentMaxRounds?: number; abortWhen?: (e: SessionEvent) => boolean } = {}): Promise<Run> {
    const model = new ScriptedModel(responses);
    const session = new AgentSession({
      tape: new OpenTape(store),
      sessionId: PARENT,
      model,
      workspace: ws.root,
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: ws.root, date: '2026-11-30' },
      subagentMaxRounds: opts.subagentMaxRounds,
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 1 },
    });
    const abort = new AbortController();
    const events: SessionEvent[] = [];
    const outcome = await session.runTurn('look into the notes', {
      signal: abort.signal,
      onEvent: (e) => {
        events.push(e);
        if (opts.abortWhen?.(e)) abort.abort();
      },
    });
    assert.strictEqual(model.remaining, 0, 'every scripted response was used');
    return { outcome, events, model };
  }

  const subagentEvents = (events: SessionEvent[]) => events.filter((e): e is SubagentEvent => e.type === 'subagent');
  const subagentResult = (events: SessionEvent[]) => {
    const result = events.find((e) => e.type === 'tool_result' && e.name === 'run_subagent');
    assert.ok(result?.type === 'tool_result');
    return result;
  };
  const toolNames = (model: ScriptedModel, request: number) => model.requests[request].tools.map((t) => t.name);
  const onlyLink = () => {
    const links = linkedChildren(store, PARENT);
    assert.strictEqual(links.length, 1);
    return links[0];
  };

  it("runs a child that reads a file; the parent gets the child's answer, and the tape links the child at its frozen head", async () => {
    const { outcome, events, model } = await run([
      callSubagent({ task: 'Read notes.txt and tell me when the launch is.', instructions: 'Quote the file.', tools: ['read_file'] }),
      callTool('child-1', 'read_file', { path: 'notes.txt' }),
      [{ text: 'The notes say: the launch moved to Tuesday.' }],
      [{ text: 'The launch is on Tuesday.' }],
    ]);
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(outcome.text, 'The launch is on Tuesday.');
    assert.deepStrictEqual(subagentResult(events), {
      ...subagentResult(events),
      status: 'ok',
      output: 'The notes say: the launch moved to Tuesday.',
    });

    // The child saw only its task and its tools; the parent's next request holds the answer.
    const childFirst = model.requests[1];
    assert.deepStrictEqual(toolNames(model, 1), ['read_file']);
    const childUser = childFirst.messages
      .filter((m) => m.role === 'user')
      .map((m) => JSON.stringify(m.content))
      .join('\n');
    assert.match(childUser, /Read notes\.txt and tell me when the launch is\./);
    assert.match(childUser, /Quote the file\./);
    assert.doesNotMatch(childUser, /look into the notes/, "the parent's conversation is not the child's");
    assert.match(JSON.stringify(model.requests[2].messages), /the launch moved to Tuesday/, "the child's tool result is in its own next request");
    assert.match(JSON.stringify(model.requests[3].messages), /The notes say: the launch moved to Tuesday\./);

    const link = onlyLink();
    const child = link.childSessionId;
    assert.ok(child.startsWith(`${PARENT}::subagent::`), child);
    assert.strictEqual(link.outcome, 'completed');
    assert.strictEqual(link.childHeadEntryId, store.headEntryId(child), 'the link froze the head the child ended at');
    assert.deepStrictEqual(readLinked(store, PARENT, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
    const start = store.entries(child, { kind: 'anchor', name: SUBAGENT_START })[0];
    assert.deepStrictEqual(subagentStartState.parse(start.payload.state), {
      parentSessionId: PARENT,
      task: 'Read notes.txt and tell me when the launch is.',
      instructions: 'Quote the file.',
      tools: ['read_file'],
      toolCallId: 'call-sub',
    });
    const childResults = store.entries(child, { kind: 'tool_result' });
    assert.deepStrictEqual(
      childResults.map((e) => [e.name, e.payload.output]),
      [['read_file', NOTES]],
    );
    assert.ok(searchScoped(store, PARENT, 'Tuesday', { scope: 'linked', limit: 10 }).length > 0, "the child's entries are found through the link");

    // Progress: one line per step, all naming the child and the parent's call; the last carries the outcome.
    const progress = subagentEvents(events);
    assert.deepStrictEqual(
      progress.map((e) => [e.line, e.outcome]),
      [
        ['started: Read notes.txt and tell me when the launch is.', undefined],
        ['read_file notes.txt', undefined],
        ['wrote: The notes say: the launch moved to Tuesday.', undefined],
        ['completed', 'completed'],
      ],
    );
    for (const e of progress) assert.deepStrictEqual([e.childSessionId, e.toolCallId, e.requestSeq], [child, 'call-sub', 1]);
    const order = events.map((e) => e.type);
    assert.ok(order.indexOf('subagent') > order.indexOf('tool_call') && order.lastIndexOf('subagent') < order.indexOf('tool_result'), order.join());
  });

  it('a child whose model fails is linked as failed, and the parent gets an error result saying why', async () => {
    const { outcome, events } = await run([
      callSubagent({ task: 'Summarise notes.txt.' }),
      [{ error: new ProviderError('auth', { status: 401 }) }],
      [{ text: 'The subagent could not run.' }],
    ]);
    assert.strictEqual(outcome.outcome, 'answer');
    const result = subagentResult(events);
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /^the subagent failed \(the model failed: .+\); session parent::subagent::\S+ is linked on the tape$/);
    const link = onlyLink();
    assert.strictEqual(link.outcome, 'failed');
    assert.match(String(link.summary), /the model failed/);
    assert.strictEqual(link.childHeadEntryId, store.headEntryId(link.childSessionId));
    assert.deepStrictEqual(subagentEvents(events).at(-1)?.outcome, 'failed');
    assert.ok(subagentEvents(events).some((e) => e.line.startsWith('model error: ')));
  });

  it("cancelling the parent's turn cancels the child, which is linked as cancelled", async () => {
    const { outcome, events } = await run([callSubagent({ task: 'Read notes.txt.' }), callTool('child-1', 'read_file', { path: 'notes.txt' })], {
      abortWhen: (e) => e.type === 'subagent' && e.line.startsWith('read_file'),
    });
    assert.strictEqual(outcome.outcome, 'cancelled');
    const link = onlyLink();
    assert.strictEqual(link.outcome, 'cancelled');
    assert.strictEqual(link.childHeadEntryId, store.headEntryId(link.childSessionId));
    const childTurnEnd = store.entries(link.childSessionId, { kind: 'event', name: 'turn/end' });
    assert.strictEqual(childTurnEnd.length, 1);
    assert.strictEqual((childTurnEnd[0].payload.data as { outcome: string }).outcome, 'cancelled');
    assert.deepStrictEqual(
      store.entries(link.childSessionId, { kind: 'tool_result' }).map((e) => e.payload.output),
      ['not run: the turn was cancelled'],
    );
    const result = subagentResult(events);
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /^the subagent cancelled/);
  });

  it('keeps the child to its tool subset: other tools are neither offered nor run', async () => {
    const { events, model } = await run([
      callSubagent({ task: 'List the folder.', tools: ['read_file'] }),
      callTool('child-1', 'list_dir', { path: '.' }),
      [{ text: 'I may not list folders.' }],
      [{ text: 'ok' }],
    ]);
    assert.deepStrictEqual(toolNames(model, 1), ['read_file']);
    const child = onlyLink().childSessionId;
    const [refused] = store.entries(child, { kind: 'tool_result' });
    assert.strictEqual(refused.name, 'list_dir');
    assert.strictEqual(refused.payload.status, 'error');
    assert.strictEqual(refused.payload.output, "list_dir is not among this subagent's tools; its tools: read_file");
    assert.strictEqual(subagentResult(events).output, 'I may not list folders.');
  });

  it("without a tools list the child gets all of the parent's tools but run_subagent", async () => {
    const { model } = await run([callSubagent({ task: 'Anything.' }), [{ text: 'done' }], [{ text: 'ok' }]]);
    const parentTools = toolNames(model, 0);
    assert.ok(parentTools.includes('run_subagent'));
    assert.deepStrictEqual(
      toolNames(model, 1),
      parentTools.filter((n) => n !== 'run_subagent'),
    );
  });

  it('an unknown tool name, or run_subagent itself, is an input error and starts no child', async () => {
    const { events } = await run([
      [
        { toolCall: { id: 'a', name: 'run_subagent', arguments: { task: 'x', tools: ['read_file', 'teleport'] } } },
        { toolCall: { id: 'b', name: 'run_subagent', arguments: { task: 'x', tools: ['run_subagent'] } } },
        { toolCall: { id: 'c', name: 'run_subagent', arguments: { task: '  ' } } },
      ],
      [{ text: 'ok' }],
    ]);
    const outputs = events.flatMap((e) => (e.type === 'tool_result' ? [[e.status, e.output]] : []));
    assert.strictEqual(outputs.length, 3);
    assert.match(outputs[0][1], /"teleport" is not a tool of this session \(its tools: read_file, .*\); nothing was started/);
    assert.match(outputs[1][1], /cannot be given run_subagent/);
    assert.match(outputs[2][1], /invalid input for run_subagent: ✖ .*\n {2}→ at task$/);
    assert.ok(outputs.every(([status]) => status === 'error'));
    assert.deepStrictEqual(linkedChildren(store, PARENT), []);
    assert.deepStrictEqual(
      store.sessions().map((s) => s.sessionId),
      [PARENT],
    );
  });

  it('a child that is still calling tools at its round budget is linked as failed', async () => {
    const { events } = await run([callSubagent({ task: 'Read forever.' }), callTool('child-1', 'read_file', { path: 'notes.txt' }), [{ text: 'gave up' }]], {
      subagentMaxRounds: 1,
    });
    assert.strictEqual(onlyLink().outcome, 'failed');
    assert.match(subagentResult(events).output, /^the subagent failed \(reached its round limit \(1 requests\) while still calling tools\)/);
  });

  it('a child that throws is reported with its own error, even when its link cannot be written either', async () => {
    // The tape refuses the link only: the child's session starts, then the link's append fails.
    const refusingLinks = new Proxy(store, {
      get(target, key) {
        if (key === 'appendMany') {
          return (sessionId: string, entries: readonly NewEntry[]) =>
            entries.some((e) => e.name === SUBAGENT_LINKED) ? Promise.reject(new Error('the disk is full')) : target.appendMany(sessionId, entries);
        }
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const runner = new SubagentRunner({
      store: refusingLinks,
      parentSessionId: PARENT,
      parentTools: defaultTools(),
      maxRounds: 2,
      runChild: () => Promise.reject(new Error('the child exploded')),
    });
    const call = { turnId: 't1', requestSeq: 1, toolCallId: 'c1' };
    await assert.rejects(runner.run({ task: 'explode', call }, new AbortController().signal), /the child exploded/);
    // With a sound child, the link's failure is the error.
    const sound = new SubagentRunner({
      store: refusingLinks,
      parentSessionId: PARENT,
      parentTools: defaultTools(),
      maxRounds: 2,
      runChild: (turn) => Promise.resolve({ sessionId: turn.sessionId, turnId: 't2', outcome: 'answer', text: 'done', rounds: 1 }),
    });
    await assert.rejects(sound.run({ task: 'fine', call }, new AbortController().signal), /the disk is full/);
    assert.deepStrictEqual(linkedChildren(store, PARENT), []);
  });
});
