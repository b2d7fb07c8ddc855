import * as assert from 'assert';
import * as vscode from 'vscode';
import type { ModelEvent, ModelRequest, ToolDefinition } from '../../src/agent/model/modelPort';
import { ProviderError } from '../../src/agent/model/providerError';
import { LmModelPort } from '../../src/extension/model/lmModelPort';
import { closedPort, startFakeOpenAiServer, type FakeOpenAiServer, type FakeReply } from '../support/fakeOpenAiServer';
import { agentTapeLog, readResponse } from './helpers';
import { until } from './waiting';

const KEY = 'sk-test-4f1c9e';
const MODEL_ID = 'fake-model';
const provider = () => vscode.workspace.getConfiguration('agentTape.provider');

const READ_FILE: ToolDefinition = {
  name: 'read_file',
  description: 'Reads a file of the workspace',
  parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

async function setting(key: 'baseUrl' | 'models', value: unknown): Promise<void> {
  await provider().update(key, value, vscode.ConfigurationTarget.Global);
  // The provider reads the settings in this extension host's change event, which precedes this value.
  await until(`agentTape.provider.${key} to change`, () => (JSON.stringify(provider().get(key)) === JSON.stringify(value) ? true : undefined));
}

const servers: FakeOpenAiServer[] = [];
async function serve(...replies: FakeReply[]): Promise<FakeOpenAiServer> {
  const server = await startFakeOpenAiServer(replies, 60_000);
  servers.push(server);
  await setting('baseUrl', server.baseURL);
  return server;
}

async function ownModel(): Promise<vscode.LanguageModelChat> {
  return until('the model in vscode.lm', async () => (await vscode.lm.selectChatModels({ vendor: 'agent-tape', id: MODEL_ID }))[0]);
}

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

async function failureOf(events: AsyncIterable<ModelEvent>): Promise<ProviderError> {
  try {
    await collect(events);
  } catch (e) {
    assert.ok(e instanceof ProviderError, `a ProviderError, not ${String(e)}`);
    return e;
  }
  throw new Error('the stream did not fail');
}

const request = (messages: ModelRequest['messages'], tools: ToolDefinition[] = []): ModelRequest => ({ messages, tools, maxOutput: 1000 });
const textOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.delta] : [])).join('');
const stopOf = (events: ModelEvent[]) => events.flatMap((e) => (e.type === 'stop' ? [e.reason] : []));

describe('Agent Tape as a language model provider (OpenAI-compatible server)', () => {
  before(async () => {
    await setting('models', [
      { id: MODEL_ID, name: 'Fake Model', contextWindow: 16384 },
      { name: 'an entry without id' },
      { id: MODEL_ID, contextWindow: 8192 },
    ]);
    await vscode.commands.executeCommand('agentTape.setApiKey', KEY);
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await vscode.commands.executeCommand('agentTape.setApiKey', '');
    await provider().update('baseUrl', undefined, vscode.ConfigurationTarget.Global);
    await provider().update('models', undefined, vscode.ConfigurationTarget.Global);
  });

  it('offers the configured models in vscode.lm, leaving out entries that do not fit, with a warning each', async () => {
    await serve();
    const model = await ownModel();
    assert.strictEqual(model.name, 'Fake Model');
    assert.strictEqual(model.vendor, 'agent-tape');
    assert.strictEqual(model.maxInputTokens, 16384 - 4096, 'the window minus the answer (a quarter of the window, at most 4096)');
    assert.strictEqual((await vscode.lm.selectChatModels({ vendor: 'agent-tape' })).length, 1);
    const log = await agentTapeLog('agentTape.provider.models[2] is skipped');
    assert.match(log, /agentTape\.provider\.models\[1\] is skipped: ✖ .*\n {2}→ at id\n/);
    assert.match(log, /agentTape\.provider\.models\[2\] is skipped: the id "fake-model" is listed earlier/);
  });

  it('streams an answer through model.sendRequest, with the key as a Bearer token', async () => {
    const server = await serve({ stream: [{ text: 'Hel' }, { text: 'lo ' }, { text: '<b>world</b>' }] });
    const model = await ownModel();
    const response = await model.sendRequest([vscode.LanguageModelChatMessage.User('Say hello')], {});
    assert.deepStrictEqual(await readResponse(response), { text: 'Hello <b>world</b>', calls: [] });
    const [sent] = server.requests;
    assert.strictEqual(sent?.path, '/v1/chat/completions');
    assert.strictEqual(sent.headers.authorization, `Bearer ${KEY}`);
    assert.strictEqual(sent.body.model, MODEL_ID);
    assert.strictEqual(sent.body.max_tokens, 4096);
    assert.deepStrictEqual(sent.body.messages, [{ role: 'user', content: 'Say hello' }]);
  });

  it('makes a tool round trip: the server gets the tools, returns a call, gets the result and answers', async () => {
    const server = await serve(
      {
        stream: [
          { text: 'Reading.' },
          { toolCall: { index: 0, id: 'call_1', name: 'read_file', arguments: '{"path":' } },
          { toolCall: { index: 0, arguments: '"a.txt"}' } },
        ],
      },
      { stream: [{ text: 'It says: hi' }] },
    );
    const model = await ownModel();
    const tools: vscode.LanguageModelChatTool[] = [{ name: READ_FILE.name, description: READ_FILE.description, inputSchema: READ_FILE.parameters }];
    const ask = vscode.LanguageModelChatMessage.User('What is in a.txt?');
    const first = await readResponse(await model.sendRequest([ask], { tools }));
    assert.strictEqual(first.text, 'Reading.');
    assert.deepStrictEqual(
      first.calls.map((c) => [c.callId, c.name, c.input]),
      [['call_1', 'read_file', { path: 'a.txt' }]],
    );
    const second = await readResponse(
      await model.sendRequest(
        [
          ask,
          vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelTextPart('Reading.'), ...first.calls]),
          vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart('call_1', [new vscode.LanguageModelTextPart('hi')])]),
        ],
        { tools },
      ),
    );
    assert.strictEqual(second.text, 'It says: hi');
    assert.deepStrictEqual(server.requests[0]?.body.tools, [
      { type: 'function', function: { name: 'read_file', description: READ_FILE.description, parameters: READ_FILE.parameters } },
    ]);
    assert.deepStrictEqual(server.requests[1]?.body.messages, [
      { role: 'user', content: 'What is in a.txt?' },
      {
        role: 'assistant',
        content: 'Reading.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'hi' },
    ]);
    assert.deepStrictEqual(
      server.requests.map((r) => r.headers.authorization),
      [`Bearer ${KEY}`, `Bearer ${KEY}`],
    );
  });

  it("a 401 fails with the credentials headline and the server's words, the key redacted", async () => {
    await serve({ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}` } } });
    const model = await ownModel();
    await assert.rejects(
      async () => readResponse(await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {})),
      (e: Error) => {
        assert.strictEqual(e.message, 'The model server refused the credentials (HTTP 401): Incorrect API key provided: [redacted]');
        return true;
      },
    );
  });

  it('a server that is not there fails with the unreachable headline', async () => {
    await setting('baseUrl', `http://127.0.0.1:${await closedPort()}/v1`);
    const model = await ownModel();
    await assert.rejects(
      async () => readResponse(await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {})),
      (e: Error) => {
        assert.match(e.message, /^The model server cannot be reached: .*ECONNREFUSED/);
        return true;
      },
    );
  });

  it('counts tokens of a text and of a message', async () => {
    await serve();
    const model = await ownModel();
    const text = 'one two three four five six seven eight';
    const tokens = await model.countTokens(text);
    assert.ok(tokens > 0 && tokens < text.length, `${tokens} tokens`);
    assert.ok((await model.countTokens(vscode.LanguageModelChatMessage.User(text))) > tokens, 'a message costs its role markers too');
  });

  it('an empty key clears it: requests then go without an Authorization header', async () => {
    const server = await serve({ stream: [{ text: 'ok' }] });
    await vscode.commands.executeCommand('agentTape.setApiKey', '');
    try {
      const model = await ownModel();
      assert.strictEqual((await readResponse(await model.sendRequest([vscode.LanguageModelChatMessage.User('hi')], {}))).text, 'ok');
      assert.strictEqual(server.requests[0]?.headers.authorization, undefined);
    } finally {
      await vscode.commands.executeCommand('agentTape.setApiKey', KEY);
    }
  });

  it('offers no models while the base URL is not an http(s) URL, is plain http to another host or holds a password, and says why in the log', async () => {
    await setting('baseUrl', 'localhost:11434/v1');
    await until('the models to go', async () => ((await vscode.lm.selectChatModels({ vendor: 'agent-tape' })).length === 0 ? true : undefined));
    await agentTapeLog('agentTape.provider.baseUrl: "localhost:11434/v1" is not an http(s) URL; no models are offered');
    await setting('baseUrl', 'http://192.0.2.1:11434/v1');
    await agentTapeLog('agentTape.provider.baseUrl: "http://192.0.2.1:11434/v1" uses plain http to 192.0.2.1:11434');
    await setting('baseUrl', 'https://me:hunter2@api.example.com/v1');
    const log = await agentTapeLog('agentTape.provider.baseUrl: "https://…@api.example.com/v1" holds a user name or password');
    assert.ok(!log.includes('hunter2'), 'the password never reaches the log');
    await serve();
    await ownModel();
  });

  it('"Tape: Manage Models…" opens the Settings editor on the provider\'s settings', async () => {
    await vscode.commands.executeCommand('agentTape.manageModels');
    const tab = await until('the Settings editor', () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Settings'));
    assert.ok(tab.isActive);
    await vscode.window.tabGroups.close(tab);
  });

  it('never writes the key to the log', async () => {
    const log = await agentTapeLog('model provider: API key cleared');
    assert.match(log, /model provider: API key set/);
    assert.ok(!log.includes(KEY), log);
  });

  describe('LmModelPort over it', () => {
    it('streams text, then estimated usage and stop; the system prompt goes first as a user message', async () => {
      const server = await serve({ stream: [{ text: 'Hi ' }, { text: 'there' }] });
      const port = new LmModelPort(await ownModel());
      // VS Code tells a consumer only the input limit (16384 - 4096): the budget the core computes from these is that limit.
      assert.deepStrictEqual(port.info, { id: MODEL_ID, vendor: 'agent-tape', contextWindow: 12288 + 3072, maxOutput: 3072 });
      const events = await collect(
        port.stream(
          request([
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Greet me' },
          ]),
          new AbortController().signal,
        ),
      );
      assert.strictEqual(textOf(events), 'Hi there');
      assert.deepStrictEqual(stopOf(events), ['stop']);
      const usage = events.find((e) => e.type === 'usage');
      assert.ok(usage?.type === 'usage' && usage.usage.estimated && usage.usage.outputTokens > 0);
      assert.deepStrictEqual(server.requests[0]?.body.messages, [
        { role: 'user', content: 'Be brief.' },
        { role: 'user', content: 'Greet me' },
      ]);
    });

    it('hands over complete tool calls and stops with tool_calls; the result goes back as a tool message', async () => {
      const server = await serve(
        {
          stream: [
            { toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path":"b.txt"}' } },
            { toolCall: { index: 1, id: 'c2', name: 'read_file', arguments: '{"path":"c.txt"}' } },
          ],
        },
        { stream: [{ text: 'both read' }] },
      );
      const port = new LmModelPort(await ownModel());
      const ask = { role: 'user' as const, content: 'Read b and c' };
      const events = await collect(port.stream(request([ask], [READ_FILE]), new AbortController().signal));
      assert.deepStrictEqual(
        events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : [])),
        [
          { id: 'c1', name: 'read_file', valid: true, arguments: { path: 'b.txt' }, rawArguments: '{"path":"b.txt"}' },
          { id: 'c2', name: 'read_file', valid: true, arguments: { path: 'c.txt' }, rawArguments: '{"path":"c.txt"}' },
        ],
      );
      assert.deepStrictEqual(stopOf(events), ['tool_calls']);
      const answer = await collect(
        port.stream(
          request(
            [
              ask,
              { role: 'assistant', content: '{"path":"b.txt"}', toolCallId: 'c1', toolName: 'read_file' },
              { role: 'assistant', content: '{"path":"c.txt"}', toolCallId: 'c2', toolName: 'read_file' },
              { role: 'tool', content: 'B', toolCallId: 'c1', toolName: 'read_file' },
              { role: 'tool', content: 'C', toolCallId: 'c2', toolName: 'read_file' },
            ],
            [READ_FILE],
          ),
          new AbortController().signal,
        ),
      );
      assert.strictEqual(textOf(answer), 'both read');
      assert.deepStrictEqual(server.requests[1]?.body.messages, [
        { role: 'user', content: 'Read b and c' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.txt"}' } },
            { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"c.txt"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'c1', content: 'B' },
        { role: 'tool', tool_call_id: 'c2', content: 'C' },
      ]);
    });

    it('a cancel mid-answer stops with cancelled and ends the server request', async () => {
      const server = await serve({ stream: Array.from({ length: 50 }, (_, i) => ({ text: `w${i} ` })), chunkDelayMs: 100 });
      const port = new LmModelPort(await ownModel());
      const controller = new AbortController();
      const events: ModelEvent[] = [];
      for await (const e of port.stream(request([{ role: 'user', content: 'Talk' }]), controller.signal)) {
        events.push(e);
        if (e.type === 'text') controller.abort();
      }
      assert.deepStrictEqual(stopOf(events), ['cancelled']);
      assert.ok(!events.some((e) => e.type === 'tool_call'));
      await until('the server to see the request abandoned', () => (server.abandoned === 1 ? true : undefined));
    });

    it('a cancel before the server answers at all also stops with cancelled, at once', async () => {
      const server = await serve({ hang: true });
      const port = new LmModelPort(await ownModel());
      const controller = new AbortController();
      const started = Date.now();
      setTimeout(() => controller.abort(), 300);
      assert.deepStrictEqual(stopOf(await collect(port.stream(request([{ role: 'user', content: 'Talk' }]), controller.signal))), ['cancelled']);
      assert.ok(Date.now() - started < 5_000, `${Date.now() - started} ms`);
      await until('the server to see the request abandoned', () => (server.abandoned === 1 ? true : undefined));
    });

    it('a tool call whose arguments are not JSON fails the request as a bad response, naming the tool', async () => {
      await serve({ stream: [{ toolCall: { index: 0, id: 'c1', name: 'read_file', arguments: '{"path": "b.txt"' } }] });
      const port = new LmModelPort(await ownModel());
      const error = await failureOf(port.stream(request([{ role: 'user', content: 'Read b' }], [READ_FILE]), new AbortController().signal));
      assert.strictEqual(error.failureClass, 'bad_response');
      assert.match(
        error.message,
        /^The model server sent a response that could not be used: the model called "read_file" but the arguments are not valid JSON .*: \{"path": "b\.txt"$/,
      );
    });

    it("keeps the failure class of the provider's errors: 401 is auth, 404 model_missing, a closed port unreachable", async () => {
      await serve({ status: 401 }, { status: 404, body: { error: { message: 'model "fake-model" not found' } } });
      const port = new LmModelPort(await ownModel());
      const auth = await failureOf(port.stream(request([{ role: 'user', content: 'hi' }]), new AbortController().signal));
      assert.deepStrictEqual(
        [auth.failureClass, auth.status, auth.transient, auth.message],
        ['auth', 401, false, 'The model server refused the credentials (HTTP 401): status 401'],
      );
      const missing = await failureOf(port.stream(request([{ role: 'user', content: 'hi' }]), new AbortController().signal));
      assert.deepStrictEqual(
        [missing.failureClass, missing.message],
        ['model_missing', 'The model server does not know this model (HTTP 404): model "fake-model" not found'],
      );
      await setting('baseUrl', `http://127.0.0.1:${await closedPort()}/v1`);
      const unreachable = await failureOf(port.stream(request([{ role: 'user', content: 'hi' }]), new AbortController().signal));
      assert.strictEqual(unreachable.failureClass, 'unreachable');
      assert.ok(unreachable.transient);
    });
  });
});

describe("LmModelPort over another vendor's model (the fake-lm test extension)", () => {
  let port: LmModelPort;
  const signal = () => new AbortController().signal;

  before(async () => {
    port = new LmModelPort(await until('the fake model', async () => (await vscode.lm.selectChatModels({ vendor: 'agent-tape-fake' }))[0]));
  });

  it('takes its facts from the chat model: window = its input limit + the answer reserved', () => {
    // Its maxOutputTokens (4000) is not in VS Code's consumer API: a quarter of the input, at most 4096, is reserved.
    assert.deepStrictEqual(port.info, { id: 'fake-1', vendor: 'agent-tape-fake', contextWindow: 32000 + 4096, maxOutput: 4096 });
    assert.ok(port.countTokens('a few words to count') > 0);
  });

  it('streams text and stops', async () => {
    const events = await collect(
      port.stream(
        request([
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hello' },
        ]),
        signal(),
      ),
    );
    assert.strictEqual(textOf(events), 'echo(2): hello');
    assert.deepStrictEqual(
      events.slice(-2).map((e) => e.type),
      ['usage', 'stop'],
    );
    assert.deepStrictEqual(stopOf(events), ['stop']);
  });

  it('returns a tool call and answers the result', async () => {
    const ask = { role: 'user' as const, content: 'tool:read_file {"path":"x.txt"}' };
    const events = await collect(port.stream(request([ask], [READ_FILE]), signal()));
    const call = events.find((e) => e.type === 'tool_call');
    assert.ok(call?.type === 'tool_call' && call.call.valid);
    assert.deepStrictEqual([call.call.name, call.call.arguments], ['read_file', { path: 'x.txt' }]);
    assert.deepStrictEqual(stopOf(events), ['tool_calls']);
    const answer = await collect(
      port.stream(
        request(
          [
            ask,
            { role: 'assistant', content: call.call.rawArguments, toolCallId: call.call.id, toolName: 'read_file' },
            { role: 'tool', content: 'contents of x', toolCallId: call.call.id, toolName: 'read_file' },
          ],
          [READ_FILE],
        ),
        signal(),
      ),
    );
    assert.strictEqual(textOf(answer), 'done: contents of x');
  });

  it('a signal aborted before the request gives stop cancelled and no request', async () => {
    const controller = new AbortController();
    controller.abort();
    assert.deepStrictEqual(await collect(port.stream(request([{ role: 'user', content: 'hello' }]), controller.signal)), [
      { type: 'stop', reason: 'cancelled' },
    ]);
  });
});
