import * as assert from 'assert';
import { noSessionIn } from '../../../src/ingest/lookedFor';

describe('noSessionIn', () => {
  const report = (skipped: Record<string, number>) => ({ file: 'f.jsonl', format: 'claude-code' as const, sessions: [], skipped, tornLastLine: false });

  it('says nothing of a source that gave a session, or whose last line is still being written', () => {
    assert.strictEqual(noSessionIn({ ...report({}), sessions: ['claude-code:x'] }), undefined);
    assert.strictEqual(noSessionIn({ ...report({}), tornLastLine: true }), undefined);
  });

  it('names a few plain skip types; a record type the file made up (markup, a link, a long one) is only counted', () => {
    const hostile = {
      summary: 3,
      '[open](command:workbench.action.terminal.new)': 1,
      '<img src=x onerror=alert(1)>': 1,
      ['x'.repeat(500)]: 1,
      a: 1,
      b: 1,
      c: 1,
      d: 1,
      e: 1,
    };
    const why = noSessionIn(report(hostile)) ?? '';
    assert.ok(why.startsWith('no Claude Code session in f.jsonl (passed over: summary 3, a 1, b 1, c 1, d 1, 4 other types); looked for '), why);
    for (const bad of ['command:', '<img', 'xxxxxxxxxx']) assert.ok(!why.includes(bad), bad);
  });
});
