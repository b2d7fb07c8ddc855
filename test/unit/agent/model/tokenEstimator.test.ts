import * as assert from 'assert';
import { TokenEstimator } from '../../../../src/agent/model/tokenEstimator';

describe('TokenEstimator', () => {
  it('counts about four characters a token, plus a little per message', () => {
    const e = new TokenEstimator();
    assert.strictEqual(e.count('x'.repeat(400)), 100);
    assert.strictEqual(e.count([{ role: 'user', content: 'x'.repeat(400) }]), 104);
    assert.strictEqual(e.countChars(10), 3);
  });

  it('calibrates with the last real count, within sane bounds', () => {
    const e = new TokenEstimator();
    e.calibrate('x'.repeat(400), 150);
    assert.strictEqual(e.count('y'.repeat(800)), 300);
    e.calibrate('x'.repeat(400), 100_000);
    assert.strictEqual(e.count('x'.repeat(400)), 400, 'capped at 4x');
    e.calibrate('x'.repeat(400), 0);
    assert.strictEqual(e.count('x'.repeat(400)), 400, 'a zero count says nothing');
  });
});
