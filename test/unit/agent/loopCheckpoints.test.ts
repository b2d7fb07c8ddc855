import { TURN_END, TURN_START, CHECKPOINTS_OFF, WORKSPACE_CHECKPOINT, WORKSPACE_RESTORED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as z from 'zod';
import type { TurnSetup } from '../../../src/agent/session/sessionHandle';
import { CheckpointStore } from '../../../src/agent/checkpoints/checkpointStore';
import type { CheckpointTaken, TurnCheckpoints } from '../../../src/agent/checkpoints/turnCheckpoints';
import { WorkspaceCheckpoints } from '../../../src/agent/checkpoints/workspaceCheckpoints';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { ToolRegistry, type Tool, type Toolbox } from '../../../src/agent/tools/tool';
import type { ToolEffect } from '../../../src/agent/tools/toolEffect';
import { OpenTape } from '../../../src/agent/session/openTape';
import type { SessionEvent, TurnOutcome } from '../../../src/agent/turnEvent';
import { linkedChildren } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { checkpointOf, checkpointsOffOf, type CheckpointReason } from '../../../src/tape/workspaceCheckpoint';
import { TempWorkspace } from './tools/fixture';

const SESSION = 's1';
const call = (id: string, name: string, args: Record<string, unknown>): ScriptedStep[] => [{ toolCall: { id, name, arguments: args } }];
const answer = (text: string): ScriptedStep[] => [{ text }];

/** A TurnCheckpoints that records what it is asked and answers from a script (the real one's "off once, then null" by default). */
class ScriptedCheckpoints implements TurnCheckpoints {
  readonly asked: { sessionId: string; reason: CheckpointReason; turnId: string; diffFrom?: string }[] = [];
  private said = false;
  constructor(private readonly answer: () => CheckpointTaken | null) {}
  take(sessionId: string, reason: CheckpointReason, turnId: string, diffFrom?: string): Promise<CheckpointTaken | null> {
    this.asked.push({ sessionId, reason, turnId, ...(diffFrom !== undefined ? { diffFrom } : {}) });
    return Promise.resolve(this.answer());
  }
  /** Off, said once, as WorkspaceCheckpoints does when git is missing. */
  static off(): ScriptedCheckpoints {
    const c: ScriptedCheckpoints = new ScriptedCheckpoints(() => {
      if (c.said) return null;
      c.said = true;
      return { kind: 'off', data: { reason: 'git_missing', message: 'no checkpoints: git is not installed or not on the PATH' } };
    });
    return c;
  }
}

describe('checkpoints in the turn loop (scripted model, real workspace and git)', function () {
  this.timeout(60_000);
  let dir: string;
  let store: TapeStore;
  let ws: TempWorkspace;
  let storeDir: string;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-loop-checkpoints-'));
    store = await TapeStore.open(path.join(dir, 'loop.tape.sqlite'));
    ws = new TempWorkspace({ 'notes.txt': 'hello\nfrom the file\n', 'keep.txt': 'kept\n' });
    storeDir = path.join(dir, 'loop.tape.sqlite.checkpoints');
  });
  afterEach(async () => {
    await store.close();
    ws.dispose();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function turn(
    responses: ScriptedStep[][],
    checkpoints: TurnCheckpoints | undefined,
    opts: { abortWhen?: (e: SessionEvent) => boolean; sessionId?: string; text?: string; tools?: Toolbox } = {},
  ): Promise<{ outcome: TurnOutcome; events: SessionEvent[] }> {
    const model = new ScriptedModel(responses);
    const setup: TurnSetup = {
      model,
      workspace: ws.root,
      permissions: { edits: true, commands: true },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: ws.root, date: '2026-12-02' },
      retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1, jitter: 0, maxRetryAfterMs: 1 },
      checkpoints,
      ...(opts.tools !== undefined ? { tools: opts.tools } : {}),
    };
    const abort = new AbortController();
    const events: SessionEvent[] = [];
    const outcome = await new OpenTape(store).session(opts.sessionId ?? SESSION).runTurn(opts.text ?? 'change the notes', setup, {
      signal: abort.signal,
      onEvent: (e) => {
        events.push(e);
        if (opts.abortWhen?.(e)) abort.abort();
      },
    });
    return { outcome, events };
  }

  const entries = (sessionId = SESSION): Entry[] => store.entries(sessionId);
  const names = (all: Entry[]) => all.map((e) => (e.kind === 'tool_call' || e.kind === 'tool_result' ? `${e.kind} ${e.name}` : e.name));
  const checkpointsOf = (all: Entry[]) => all.map(checkpointOf).filter((c) => c !== null);
  const real = () => new WorkspaceCheckpoints(storeDir, ws.root);

  it('a turn that calls apply_edit: a turn_start checkpoint before the tool result, a turn_end one listing the file before turn/end', async () => {
    const { outcome, events } = await turn(
      [
        call('r1', 'read_file', { path: 'notes.txt' }),
        call('e1', 'apply_edit', { path: 'notes.txt', oldText: 'from the file', newText: 'from the agent\nand more' }),
        answer('Edited.'),
      ],
      real(),
    );
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(ws.read('notes.txt'), 'hello\nfrom the agent\nand more\n');
    const all = entries();
    const order = names(all).filter((n) =>
      [TURN_START, TURN_END, WORKSPACE_CHECKPOINT, 'tool_call read_file', 'tool_result read_file', 'tool_call apply_edit', 'tool_result apply_edit'].includes(
        n,
      ),
    );
    assert.deepStrictEqual(order, [
      TURN_START,
      'tool_call read_file',
      'tool_result read_file',
      'tool_call apply_edit',
      WORKSPACE_CHECKPOINT,
      'tool_result apply_edit',
      WORKSPACE_CHECKPOINT,
      TURN_END,
    ]);
    const [start, end] = checkpointsOf(all);
    assert.deepStrictEqual([start.reason, start.turnId, start.previousId, start.files], ['turn_start', outcome.turnId, null, []]);
    assert.strictEqual(start.fileCount, 2);
    assert.deepStrictEqual([end.reason, end.turnId, end.previousId], ['turn_end', outcome.turnId, start.checkpointId]);
    assert.deepStrictEqual(end.files, [{ path: 'notes.txt', change: 'modified', added: 2, removed: 1 }]);
    for (const e of all.filter((x) => x.name === WORKSPACE_CHECKPOINT)) assert.strictEqual(e.meta.turnId, outcome.turnId);

    // The store holds the workspace as it was before the edit, and after.
    const checkpoints = await CheckpointStore.open(storeDir, ws.root, { create: false });
    assert.strictEqual((await checkpoints.fileAt(start.checkpointId, 'notes.txt', 1024))?.toString(), 'hello\nfrom the file\n');
    assert.strictEqual((await checkpoints.fileAt(end.checkpointId, 'notes.txt', 1024))?.toString(), 'hello\nfrom the agent\nand more\n');

    const emitted = events.filter((e) => e.type === 'checkpoint');
    assert.deepStrictEqual(
      emitted.map((e) => [e.reason, e.checkpointId, e.files, e.added, e.removed]),
      [
        ['turn_start', start.checkpointId, 0, 0, 0],
        ['turn_end', end.checkpointId, 1, 2, 1],
      ],
    );
  });

  it('a turn that only reads (read_file, list_dir, search_text, find_files, the tape tools) takes no checkpoint', async () => {
    const checkpoints = new ScriptedCheckpoints(() => {
      throw new Error('no checkpoint is asked for');
    });
    const { outcome } = await turn(
      [
        call('r1', 'read_file', { path: 'notes.txt' }),
        call('r2', 'list_dir', { path: '.' }),
        call('r3', 'search_text', { query: 'hello' }),
        call('r4', 'find_files', { pattern: '*.txt' }),
        call('r5', 'tape_info', {}),
        answer('It says hello.'),
      ],
      checkpoints,
    );
    assert.strictEqual(outcome.outcome, 'answer');
    assert.deepStrictEqual(checkpoints.asked, []);
    assert.ok(!names(entries()).includes(WORKSPACE_CHECKPOINT));
    // The real one too: nothing taken, so no store is made.
    await turn([call('r1', 'read_file', { path: 'notes.txt' }), answer('hello')], real());
    assert.ok(!names(entries()).includes(WORKSPACE_CHECKPOINT));
    assert.ok(!fs.existsSync(storeDir));
  });

  it("each tool's effect decides, not its name: edit, command, delegate and a tool the toolbox knows nothing of are checkpointed; read and tape are not", async () => {
    const marked = (name: string, effect: ToolEffect): Tool => ({
      name,
      description: `does nothing, marked ${effect}`,
      effect,
      inputSchema: z.object({}),
      run: () => Promise.resolve({ status: 'ok', output: 'done' }),
    });
    // Named as core tools of the other kind, so a list of names would decide the other way.
    const cases: [string, ToolEffect, boolean][] = [
      ['apply_edit', 'read', false],
      ['run_command', 'tape', false],
      ['read_file', 'edit', true],
      ['tape_info', 'command', true],
      ['list_dir', 'delegate', true],
    ];
    for (const [name, effect, checkpointed] of cases) {
      const checkpoints = new ScriptedCheckpoints(() => null);
      await turn([call('c', name, {}), answer('Done.')], checkpoints, { tools: new ToolRegistry([marked(name, effect)]) });
      assert.deepStrictEqual(
        checkpoints.asked.map((a) => a.reason),
        checkpointed ? ['turn_start'] : [],
        `${name} marked ${effect}`,
      );
    }
    const registry = new ToolRegistry([marked('find_files', 'read')]);
    const unknown: Toolbox = { specs: () => registry.specs(), effectOf: () => undefined, invoke: (n, i, c) => registry.invoke(n, i, c) };
    const checkpoints = new ScriptedCheckpoints(() => null);
    await turn([call('c', 'find_files', {}), answer('Done.')], checkpoints, { tools: unknown });
    assert.deepStrictEqual(
      checkpoints.asked.map((a) => a.reason),
      ['turn_start'],
    );
  });

  it('one checkpoint per turn before the first tool that may change files, however many follow; an invalid call takes none', async () => {
    const real = new WorkspaceCheckpoints(storeDir, ws.root);
    const asked: CheckpointReason[] = [];
    const counting: TurnCheckpoints = {
      take: (sessionId, reason, turnId, diffFrom) => (asked.push(reason), real.take(sessionId, reason, turnId, diffFrom)),
    };
    await turn(
      [
        [{ toolCall: { id: 'bad', name: 'apply_edit', arguments: '{"path": ' } }],
        call('e1', 'apply_edit', { path: 'a.txt', newText: 'a\n' }),
        [...call('e2', 'apply_edit', { path: 'b.txt', newText: 'b\n' }), ...call('c1', 'run_command', { command: 'rm keep.txt' })],
        answer('Done.'),
      ],
      counting,
    );
    assert.deepStrictEqual(asked, ['turn_start', 'turn_end']);
    const [, end] = checkpointsOf(entries());
    assert.deepStrictEqual(
      end.files.map((f) => [f.path, f.change]),
      [
        ['a.txt', 'added'],
        ['b.txt', 'added'],
        ['keep.txt', 'deleted'],
      ],
    );
  });

  it('checkpoints off: one workspace/checkpoints-off entry and one checkpoints_off event, said once for the session; the turn still answers', async () => {
    const checkpoints = ScriptedCheckpoints.off();
    const first = await turn([call('e1', 'apply_edit', { path: 'notes.txt', newText: 'one\n' }), answer('Done once.')], checkpoints);
    const second = await turn([call('e2', 'apply_edit', { path: 'notes.txt', newText: 'two\n' }), answer('Done twice.')], checkpoints);
    assert.deepStrictEqual([first.outcome.outcome, first.outcome.text, second.outcome.text], ['answer', 'Done once.', 'Done twice.']);
    assert.strictEqual(ws.read('notes.txt'), 'two\n');
    const all = entries();
    const off = all.filter((e) => e.name === CHECKPOINTS_OFF);
    assert.strictEqual(off.length, 1);
    assert.deepStrictEqual(checkpointsOffOf(off[0]), { reason: 'git_missing', message: 'no checkpoints: git is not installed or not on the PATH' });
    assert.strictEqual(off[0].meta.turnId, first.outcome.turnId);
    assert.ok(!names(all).includes(WORKSPACE_CHECKPOINT));
    assert.deepStrictEqual(
      [...first.events, ...second.events].filter((e) => e.type === 'checkpoints_off').map((e) => e.type === 'checkpoints_off' && [e.reason, e.turnId]),
      [['git_missing', first.outcome.turnId]],
    );
    // Off at the turn's start, so no turn_end is asked for either.
    assert.deepStrictEqual(
      checkpoints.asked.map((a) => a.reason),
      ['turn_start', 'turn_start'],
    );
  });

  it('git missing for real: WorkspaceCheckpoints reports off once, with the reason, and the edit is made', async () => {
    const empty = path.join(dir, 'no-git');
    fs.mkdirSync(empty);
    const saved = process.env.PATH;
    process.env.PATH = empty;
    try {
      const { outcome, events } = await turn([call('e1', 'apply_edit', { path: 'notes.txt', newText: 'edited\n' }), answer('Edited.')], real());
      assert.strictEqual(outcome.outcome, 'answer');
      assert.deepStrictEqual(
        events.filter((e) => e.type === 'checkpoints_off').map((e) => e.type === 'checkpoints_off' && e.reason),
        ['git_missing'],
      );
    } finally {
      process.env.PATH = saved;
    }
    assert.strictEqual(ws.read('notes.txt'), 'edited\n');
    assert.deepStrictEqual(
      entries()
        .filter((e) => e.name === CHECKPOINTS_OFF)
        .map((e) => checkpointsOffOf(e)?.reason),
      ['git_missing'],
    );
  });

  it('a turn cancelled after an edit still records its turn_end checkpoint (before turn/end), listing the edit', async () => {
    const { outcome } = await turn([call('e1', 'apply_edit', { path: 'notes.txt', newText: 'cancelled but written\n' }), answer('never asked')], real(), {
      abortWhen: (e) => e.type === 'tool_result' && e.name === 'apply_edit',
    });
    assert.strictEqual(outcome.outcome, 'cancelled');
    const all = entries();
    const tail = names(all).filter((n) => n === WORKSPACE_CHECKPOINT || n === TURN_END);
    assert.deepStrictEqual(tail, [WORKSPACE_CHECKPOINT, WORKSPACE_CHECKPOINT, TURN_END]);
    const [start, end] = checkpointsOf(all);
    assert.deepStrictEqual([start.reason, end.reason, end.previousId], ['turn_start', 'turn_end', start.checkpointId]);
    assert.deepStrictEqual(end.files, [{ path: 'notes.txt', change: 'modified', added: 1, removed: 2 }]);
  });

  it("subagent turns take no checkpoints: the parent's checkpoints hold the child's edit", async () => {
    const { outcome } = await turn(
      [
        call('sub', 'run_subagent', { task: 'Rewrite notes.txt.', tools: ['apply_edit'] }),
        call('child-edit', 'apply_edit', { path: 'notes.txt', newText: 'rewritten by the child\n' }),
        answer('Rewritten.'),
        answer('The subagent rewrote it.'),
      ],
      real(),
    );
    assert.strictEqual(outcome.outcome, 'answer');
    assert.strictEqual(ws.read('notes.txt'), 'rewritten by the child\n');
    const [link] = linkedChildren(store, SESSION);
    assert.ok(link.childSessionId.startsWith(`${SESSION}::subagent::`));
    const child = entries(link.childSessionId);
    assert.ok(names(child).includes('tool_result apply_edit'), 'the child made the edit');
    assert.deepStrictEqual(
      child.filter((e) => e.name === WORKSPACE_CHECKPOINT || e.name === CHECKPOINTS_OFF),
      [],
    );
    const parent = entries();
    assert.deepStrictEqual(
      names(parent).filter((n) => n === WORKSPACE_CHECKPOINT || n.endsWith('run_subagent')),
      ['tool_call run_subagent', WORKSPACE_CHECKPOINT, 'tool_result run_subagent', WORKSPACE_CHECKPOINT],
    );
    const [, end] = checkpointsOf(parent);
    assert.deepStrictEqual(
      end.files.map((f) => [f.path, f.change]),
      [['notes.txt', 'modified']],
    );
  });

  it("the session handle restores the files to the turn's turn/start: before_restore and workspace/restored on the tape, and undoes it", async () => {
    const { outcome } = await turn(
      [
        [
          ...call('e1', 'apply_edit', { path: 'notes.txt', newText: 'changed\n' }),
          ...call('c1', 'run_command', { command: 'rm keep.txt && echo new > made.txt' }),
        ],
        answer('Done.'),
      ],
      real(),
    );
    assert.strictEqual(outcome.outcome, 'answer');
    const session = new OpenTape(store).session(SESSION);
    const turnStart = session.entries({ kind: 'event' }).find((e) => e.name === TURN_START && e.meta.turnId === outcome.turnId)!.entryId;
    const checkpoints = await CheckpointStore.open(storeDir, ws.root, { create: false });
    const state = session.workspaceStateAt(turnStart);
    const [start] = checkpointsOf(entries());
    assert.strictEqual(state?.checkpointId, start.checkpointId);
    const planned = await session.planRestore(checkpoints, turnStart);
    assert.deepStrictEqual([planned.plan.changed, planned.plan.created, planned.plan.removed], [['notes.txt'], ['keep.txt'], ['made.txt']]);
    const receipt = await session.restore(checkpoints, planned);
    assert.strictEqual(receipt.restored, true);
    assert.deepStrictEqual([ws.read('notes.txt'), ws.read('keep.txt'), ws.exists('made.txt')], ['hello\nfrom the file\n', 'kept\n', false]);
    const restored = session.entry(receipt.restoredEntryId!)!;
    assert.strictEqual(restored.name, WORKSPACE_RESTORED);
    assert.strictEqual(checkpointOf(session.entry(receipt.checkpointEntryId!)!)?.reason, 'before_restore');
    // Again: nothing to do, nothing appended.
    const head = session.head();
    assert.deepStrictEqual(await session.restore(checkpoints, await session.planRestore(checkpoints, turnStart)), { restored: false });
    assert.strictEqual(session.head(), head);
    // Undo: back to the state before the restore.
    await session.restore(checkpoints, await session.planRestore(checkpoints, receipt.checkpointEntryId!));
    assert.deepStrictEqual([ws.read('notes.txt'), ws.exists('keep.txt'), ws.read('made.txt')], ['changed\n', false, 'new\n']);
  });
});
