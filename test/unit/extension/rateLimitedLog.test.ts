import * as assert from 'assert';
import { rateLimitedLog } from '../../../src/extension/otlp/rateLimitedLog';

describe('rateLimitedLog', () => {
  it('passes one warning and one error per window, then says how many it left out; info always passes', () => {
    let now = 0;
    const lines: string[] = [];
    const log = rateLimitedLog(
      (level, line) => lines.push(`${level}: ${line}`),
      30_000,
      () => now,
    );
    for (let i = 0; i < 5; i++) {
      log('error', `batch ${i} dropped`);
      log('warn', `retry ${i}`);
      now += 1000;
    }
    log('info', 'takes spans again');
    now = 30_000;
    log('error', 'batch 5 dropped');
    now = 30_500;
    log('error', 'batch 6 dropped');
    now = 61_000;
    log('error', 'batch 7 dropped');
    assert.deepStrictEqual(lines, [
      'error: batch 0 dropped',
      'warn: retry 0',
      'info: takes spans again',
      'error: batch 5 dropped (4 more like it left out of the log before this)',
      'error: batch 7 dropped (1 more like it left out of the log before this)',
    ]);
  });
});
