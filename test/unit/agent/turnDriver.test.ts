import * as assert from 'assert';
import { TurnDriver, type DriverDeps } from '../../../src/agent/loop';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import type { ToolAnswer, ToolExecutor } from '../../../src/agent/toolExecutor';
import { ToolRegistry } from '../../../src/agent/tools/tool';
import { WORKSPACE_TOOLS } from '../../../src/agent/tools/workspaceTools';
import { TapeStore } from '../../../src/store/tapeStore';
import { turnStartEntry } from '../../../src/tape/turnEntries';
import { TapeAssembler } from '../../support/tapeAssembler';

const SESSION = 's1';
const READ = (id: string, path: string): ScriptedStep[] => [{ toolCall: { id, name: 'read_file', arguments: { path } } }];

/** An executor answering from a table by call id, ending the turn after the request whose number it is told. */
function tableExecutor(answers: Record<string, ToolAnswer>, stopAfterRequest?: number): ToolExecutor<'diverged'> & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    effectOf: () => 'read',
    answer: (call, slot) => {
      asked.push(`${slot.requestSeq}/${slot.index} ${call.id}`);
      return Promise.resolve(answers[call.id]);
    },
    stopAfter: (requestSeq) => (requestSeq === stopAfterRequest ? 'diverged' : null),
  };
}

describe('TurnDriver (the turn loop driven with a tool executor of its own)', () => {
  let store: TapeStore;
  beforeEach(async () => {
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
  });

  function driver(steps: ScriptedStep[][]): TurnDriver {
    const model = new ScriptedModel(steps);
    const assembler = new TapeAssembler(store, SESSION, model, new ToolRegistry(WORKSPACE_TOOLS));
    const deps: DriverDeps = {
      tape: store,
      sessionId: SESSION,
      model,
      assemble: assembler.assemble,
      signal: new AbortController().signal,
      messageOf: ({ requestSeq }) => ({ messageId: `mine/${requestSeq}`, orderSeq: 10 + requestSeq }),
      toolSetRecorded: () => true,
    };
    return new TurnDriver(deps, { sessionId: SESSION, turnId: 't1' });
  }

  it('starts at any request after entries of its own, records the executor answers (meta, no error/tool for a call not run) and ends with its outcome', async () => {
    const d = driver([[...READ('c1', 'a.md'), ...READ('c2', 'b.md')]]);
    const waiting = await d.send(3, [{ kind: 'event', name: 'test/lead', payload: { name: 'test/lead', data: {} } }]);
    assert.ok('calls' in waiting);
    assert.deepStrictEqual([waiting.requestSeq, waiting.messageId, waiting.calls.map((c) => c.id)], [3, 'mine/3', ['c1', 'c2']]);
    const executor = tableExecutor(
      {
        c1: { result: { status: 'ok', output: 'recorded a' }, ran: false, meta: { from: 'elsewhere' } },
        c2: { result: { status: 'error', output: 'not run: no' }, ran: false },
      },
      3,
    );
    const ended = await d.goOn(waiting, 8, executor);
    assert.deepStrictEqual([ended.outcome, ended.rounds], ['diverged', 3]);
    assert.deepStrictEqual(executor.asked, ['3/0 c1', '3/1 c2']);
    const entries = store.entries(SESSION);
    assert.deepStrictEqual(
      entries.map((e) => `${e.kind} ${e.name}`),
      [
        'anchor session/start',
        'event test/lead',
        'event view/assembled',
        'event provider/attempt',
        'message message/assistant',
        'tool_call read_file',
        'tool_call read_file',
        'tool_result read_file',
        'tool_result read_file',
        'event turn/end',
      ],
      'no system/tools (the view holds the set), no error/tool for a call that did not run',
    );
    const [first, second] = entries.filter((e) => e.kind === 'tool_result');
    assert.deepStrictEqual([first.payload.output, first.meta], ['recorded a', { turnId: 't1', from: 'elsewhere' }]);
    assert.deepStrictEqual([second.payload.status, second.meta], ['error', { turnId: 't1' }]);
    assert.deepStrictEqual(entries.find((e) => e.kind === 'message')?.payload.orderSeq, 13);
  });

  it('goes on through later requests while the executor lets it, an error of a call that ran recorded as error/tool, and stops at the last request it may send', async () => {
    const d = driver([READ('c1', 'a.md'), READ('c2', 'b.md'), READ('c3', 'c.md')]);
    const waiting = await d.send(1, [turnStartEntry({ sessionId: SESSION, turnId: 't1' }, 2)]);
    assert.ok('calls' in waiting);
    const executor = tableExecutor({
      c1: { result: { status: 'error', output: 'failed for real' }, ran: true },
      c2: { result: { status: 'ok', output: 'b' }, ran: true },
    });
    const ended = await d.goOn(waiting, 2, executor);
    assert.deepStrictEqual([ended.outcome, ended.rounds], ['round_limit', 2]);
    assert.deepStrictEqual(executor.asked, ['1/0 c1', '2/0 c2']);
    assert.deepStrictEqual(
      store.entries(SESSION, { kind: 'error' }).map((e) => e.payload.message),
      ['failed for real'],
    );
  });
});
