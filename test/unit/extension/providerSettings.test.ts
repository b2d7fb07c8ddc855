import * as assert from 'assert';
import { parseProviderSettings, settingsWithPick } from '../../../src/extension/model/providerSettings';

describe('providerSettings', () => {
  it('applies the defaults: name = id, a 32768 window, a quarter of it at most 4096 for the answer, tool calling on', () => {
    assert.deepStrictEqual(
      parseProviderSettings('http://127.0.0.1:11434/v1/', [{ id: 'llama3' }, { id: 'small', name: 'Small', contextWindow: 8192, toolCalling: false }]),
      {
        baseUrl: 'http://127.0.0.1:11434/v1',
        models: [
          { id: 'llama3', name: 'llama3', contextWindow: 32768, maxOutput: 4096, toolCalling: true },
          { id: 'small', name: 'Small', contextWindow: 8192, maxOutput: 2048, toolCalling: false },
        ],
        problems: [],
      },
    );
  });

  it('an empty or absent base URL offers no models and is no problem', () => {
    for (const url of ['', '  ', undefined]) assert.deepStrictEqual(parseProviderSettings(url, [{ id: 'x' }]), { baseUrl: '', models: [], problems: [] });
  });

  it('a base URL that is not http(s) offers no models and says so', () => {
    for (const url of ['localhost:11434', 'ftp://example.com/v1', 'not a url']) {
      const s = parseProviderSettings(url, [{ id: 'x' }]);
      assert.deepStrictEqual([s.baseUrl, s.models], ['', []]);
      assert.deepStrictEqual(s.problems, [`agentTape.provider.baseUrl: "${url}" is not an http(s) URL; no models are offered`]);
    }
  });

  it('a base URL with a user name or password offers no models and the password shows nowhere', () => {
    const s = parseProviderSettings('https://me:hunter2@api.example.com/v1', [{ id: 'x' }]);
    assert.deepStrictEqual([s.baseUrl, s.models], ['', []]);
    assert.deepStrictEqual(s.problems, [
      'agentTape.provider.baseUrl: "https://…@api.example.com/v1" holds a user name or password, which would go with every request and into logs; give the address without them (the API key is set on its own); no models are offered',
    ]);
  });

  it('plain http to another machine offers no models and says to use https', () => {
    const s = parseProviderSettings('http://192.168.1.5:11434/v1', [{ id: 'x' }]);
    assert.deepStrictEqual([s.baseUrl, s.models], ['', []]);
    assert.deepStrictEqual(s.problems, [
      'agentTape.provider.baseUrl: "http://192.168.1.5:11434/v1" uses plain http to 192.168.1.5:11434, which anyone on the network can read, API key included; use https (plain http is allowed only for localhost, 127.0.0.0/8 and ::1); no models are offered',
    ]);
    assert.strictEqual(parseProviderSettings('http://localhost:11434/v1', [{ id: 'x' }]).models.length, 1);
  });

  it('skips each entry that does not fit, naming its index and field, and keeps the others', () => {
    const s = parseProviderSettings('https://api.example.com/v1', [
      { id: 'good' },
      'just-a-string',
      { id: '  ' },
      { id: 'tiny', contextWindow: 512 },
      { id: 'typo', toolcalling: true },
      { id: 'good', name: 'again' },
      { id: 'greedy', contextWindow: 4096, maxOutput: 4096 },
    ]);
    assert.deepStrictEqual(
      s.models.map((m) => m.id),
      ['good'],
    );
    assert.strictEqual(s.problems.length, 6);
    assert.match(s.problems[0] ?? '', /^agentTape\.provider\.models\[1\] is skipped: .*object/);
    assert.match(s.problems[1] ?? '', /^agentTape\.provider\.models\[2\] is skipped: ✖ .*\n {2}→ at id$/);
    assert.match(s.problems[2] ?? '', /^agentTape\.provider\.models\[3\] is skipped: ✖ .*1024.*\n {2}→ at contextWindow$/);
    assert.match(s.problems[3] ?? '', /^agentTape\.provider\.models\[4\] is skipped: .*toolcalling/);
    assert.strictEqual(s.problems[4], 'agentTape.provider.models[5] is skipped: the id "good" is listed earlier');
    assert.strictEqual(s.problems[5], 'agentTape.provider.models[6] is skipped: maxOutput 4096 leaves no room for input in a window of 4096');
  });

  it('models that are not an array are one problem, not an exception', () => {
    assert.deepStrictEqual(parseProviderSettings('http://localhost:8080/v1', { id: 'x' }).problems, [
      'agentTape.provider.models: expected an array of { id, name?, contextWindow?, maxOutput?, toolCalling? }',
    ]);
  });
});

describe('settingsWithPick (Tape: Set Up a Model…)', () => {
  const pick = { baseUrl: 'http://127.0.0.1:11434/v1', model: 'qwen2.5-coder:7b' };

  it('with nothing configured, the picked server and model are the provider', () => {
    assert.deepStrictEqual(settingsWithPick('', [], pick), { baseUrl: pick.baseUrl, models: [{ id: 'qwen2.5-coder:7b' }] });
    assert.deepStrictEqual(settingsWithPick(undefined, undefined, pick), { baseUrl: pick.baseUrl, models: [{ id: 'qwen2.5-coder:7b' }] });
  });

  it('another server is replaced with its models', () => {
    assert.deepStrictEqual(settingsWithPick('https://api.openai.com/v1', [{ id: 'gpt-4.1', contextWindow: 128000 }], pick), {
      baseUrl: pick.baseUrl,
      models: [{ id: 'qwen2.5-coder:7b' }],
    });
  });

  it('the same server keeps the models listed, as written, and adds the pick once', () => {
    const listed = [{ id: 'llama3.2:3b', contextWindow: 8192 }];
    assert.deepStrictEqual(settingsWithPick('http://127.0.0.1:11434/v1/', listed, pick), {
      baseUrl: pick.baseUrl,
      models: [...listed, { id: 'qwen2.5-coder:7b' }],
    });
    const already = [{ id: 'qwen2.5-coder:7b', contextWindow: 16384 }];
    assert.deepStrictEqual(settingsWithPick(pick.baseUrl, already, pick), { baseUrl: pick.baseUrl, models: already });
  });
});
