import * as assert from 'assert';
import { judge } from '../../../src/rerun/agreement';
import { differenceSummary, responseDocument, type ResponseFacts } from '../../../src/extension/rerun/responseDocument';

const recorded: ResponseFacts = {
  status: 'recorded',
  finish: 'tool_calls',
  text: 'Let me look.',
  toolCalls: [{ name: 'read_file', arguments: { path: 'a.txt' } }],
  tokens: { input: 100, output: 10, cached: 40 },
  latencyMs: 900,
  model: 'test/scripted',
};

describe('re-run documents (recorded vs re-run, for the diff editor)', () => {
  it('lays both sides out alike: the facts, one tool call a line, then the text and any notes', () => {
    assert.strictEqual(
      responseDocument('Recorded: s #5', recorded),
      [
        '# Recorded: s #5',
        'model: test/scripted',
        'status: recorded',
        'finish: tool calls',
        'tokens: 100 in, 10 out, 40 cached',
        'latency: 900 ms',
        '',
        '## Tool calls (1)',
        'read_file {"path":"a.txt"}',
        '',
        '## Text',
        'Let me look.',
        '',
      ].join('\n'),
    );
    const failed = responseDocument('Re-run: s #5', {
      ...recorded,
      status: 'failed',
      finish: null,
      toolCalls: [{ name: 'bad', arguments: '{not json' }],
      tokens: null,
      latencyMs: null,
      notes: ['auth: no key'],
    });
    assert.match(failed, /finish: no answer\ntokens: not recorded\nlatency: not recorded\n/);
    assert.match(failed, /## Tool calls \(1\)\nbad \{not json\n/);
    assert.match(failed, /## Notes\nauth: no key\n$/);
  });

  it('sums up what differs: the verdict and its reason, and the token and latency deltas', () => {
    const rerun: ResponseFacts = {
      ...recorded,
      status: 'ok',
      toolCalls: [{ name: 'read_file', arguments: { path: 'b.txt' } }],
      tokens: { input: 120, output: 8, cached: 0 },
      latencyMs: 700,
    };
    const verdict = judge(
      { facts: { messageEntryId: 3, finish: 'tool_calls', toolCalls: [...recorded.toolCalls], tokens: recorded.tokens, latencyMs: 900 }, text: recorded.text },
      { finish: 'tool_calls', text: rerun.text, toolCalls: rerun.toolCalls },
      0.5,
    );
    assert.strictEqual(differenceSummary(verdict, recorded, rerun), `diverges: ${verdict.reason}; tokens +20 in, -2 out; latency -200 ms`);
    assert.match(verdict.reason ?? '', /read_file/);
    const same = judge(
      { facts: { messageEntryId: 3, finish: 'tool_calls', toolCalls: [...recorded.toolCalls], tokens: null, latencyMs: null }, text: recorded.text },
      { finish: 'tool_calls', text: recorded.text, toolCalls: recorded.toolCalls },
      0.5,
    );
    assert.strictEqual(differenceSummary(same, recorded, { ...recorded, status: 'ok' }), 'agrees with the recording; tokens 0 in, 0 out; latency 0 ms');
    assert.strictEqual(differenceSummary(null, recorded, { ...recorded, status: 'cancelled', tokens: null, latencyMs: null }), 'the re-run was cancelled');
  });
});
