import * as assert from 'assert';
import { summaryOf, SUMMARY_MAX } from '../../../src/tape/entrySummary';

describe('entry summaries', () => {
  it('summarises each kind on one line', () => {
    assert.strictEqual(summaryOf('message', 'message/user', { content: 'two\n  lines' }), 'two lines');
    assert.strictEqual(summaryOf('system', 'system/prompt', { content: 'You are' }), 'You are');
    assert.strictEqual(summaryOf('tool_call', 'read_file', { input: { path: 'a.ts' } }), 'read_file {"path":"a.ts"}');
    assert.strictEqual(summaryOf('tool_result', 'read_file', { status: 'error', output: 'no such file' }), 'error: no such file');
    assert.strictEqual(summaryOf('error', 'error/provider', { kind: 'provider', message: 'HTTP 500' }), 'provider: HTTP 500');
    assert.strictEqual(summaryOf('anchor', 'handoff/x', { state: { summary: 'Done so far', next: 1 } }), 'Done so far');
    assert.strictEqual(summaryOf('anchor', 'session/start', { state: { sessionId: 's' } }), '{"sessionId":"s"}');
    assert.strictEqual(summaryOf('event', 'session/title', { data: { title: 'T' } }), '{"title":"T"}');
  });

  it('cuts at 200 characters with an ellipsis', () => {
    const s = summaryOf('message', 'message/user', { content: 'x'.repeat(1000) });
    assert.strictEqual(s.length, SUMMARY_MAX);
    assert.strictEqual(s, `${'x'.repeat(199)}…`);
    assert.strictEqual(summaryOf('message', 'message/user', { content: 'y'.repeat(200) }), 'y'.repeat(200));
  });
});
