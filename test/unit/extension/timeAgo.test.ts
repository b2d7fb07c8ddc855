import * as assert from 'assert';
import { timeAgo } from '../../../src/extension/blame/timeAgo';

const NOW = Date.parse('2026-12-06T18:00:00.000Z');
const before = (ms: number): string => new Date(NOW - ms).toISOString();
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

describe('timeAgo (the blame note and hover)', () => {
  it('says how long ago in the largest whole unit, rounded down', () => {
    const cases: [number, string][] = [
      [0, 'just now'],
      [59_999, 'just now'],
      [MIN, '1 min ago'],
      [59 * MIN + 59_999, '59 min ago'],
      [HOUR, '1 h ago'],
      [3 * HOUR + 59 * MIN, '3 h ago'],
      [DAY, '1 day ago'],
      [29 * DAY, '29 days ago'],
      [30 * DAY, '1 month ago'],
      [364 * DAY, '12 months ago'],
      [365 * DAY, '1 year ago'],
      [3 * 365 * DAY, '3 years ago'],
    ];
    assert.deepStrictEqual(
      cases.map(([ms]) => timeAgo(before(ms), NOW)),
      cases.map(([, words]) => words),
    );
  });

  it('a time after now (another clock) is just now; a time it cannot read is said to be unknown', () => {
    assert.strictEqual(timeAgo(before(-5 * HOUR), NOW), 'just now');
    assert.strictEqual(timeAgo('yesterday-ish', NOW), 'at an unknown time');
  });
});
