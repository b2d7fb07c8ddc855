import * as assert from 'assert';
import { ProviderError } from '../../../../src/agent/model/providerError';
import { ScriptedModel } from '../../../../src/agent/model/scriptedModel';
import { collect, failure } from './collect';

const req = (content: string) => ({ messages: [{ role: 'user' as const, content }], tools: [], maxOutput: 10 });
const never = new AbortController().signal;

describe('ScriptedModel', () => {
  it('plays one response per request, records the requests, and ends with the fitting stop reason', async () => {
    const model = new ScriptedModel([
      [{ text: 'Let me look.' }, { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'a' } } }, { usage: { inputTokens: 5, outputTokens: 2 } }],
      [{ text: 'Done' }, { stop: 'length' }],
      [{ toolCall: { id: 'c2', name: 'read_file', arguments: '{"path": ' } }],
    ]);
    const first = await collect(model.stream(req('one'), never));
    assert.strictEqual(first.text, 'Let me look.');
    assert.deepStrictEqual(first.calls, [{ id: 'c1', name: 'read_file', valid: true, arguments: { path: 'a' }, rawArguments: '{"path":"a"}' }]);
    assert.deepStrictEqual(first.usage, { inputTokens: 5, outputTokens: 2, estimated: false });
    assert.strictEqual(first.stop, 'tool_calls');
    assert.strictEqual((await collect(model.stream(req('two'), never))).stop, 'length');
    const third = await collect(model.stream(req('three'), never));
    assert.strictEqual(third.calls[0].valid, false);
    assert.deepStrictEqual(
      model.requests.map((r) => r.messages[0].content),
      ['one', 'two', 'three'],
    );
    assert.strictEqual(model.remaining, 0);
    await assert.rejects(collect(model.stream(req('four'), never)), /no scripted response/);
  });

  it('throws a scripted error where it stands, after the steps before it', async () => {
    const model = new ScriptedModel([[{ text: 'par' }, { error: new ProviderError('server', { status: 500 }) }]]);
    const { error, before } = await failure(model.stream(req('x'), never));
    assert.strictEqual(before.text, 'par');
    assert.ok(error instanceof ProviderError && error.failureClass === 'server');
  });
});
