import * as assert from 'assert';
import { planAppend, sessionStartEntry } from '../../../src/tape/append';
import type { NewEntry } from '../../../src/tape/entry';

const msg = (id: string): NewEntry => ({
  kind: 'message',
  name: 'message/user',
  payload: { messageId: id, role: 'user', status: 'sent', orderSeq: 1, content: id },
});
const start = (key: string): NewEntry => ({ kind: 'anchor', name: 'session/start', provenanceKey: key, payload: { name: 'session/start', state: {} } });

describe('the append rule (planAppend)', () => {
  it('a new session gets its session/start first, unless the caller brings one first', () => {
    assert.deepStrictEqual(planAppend('s', [msg('a')], { isNew: true, hasSessionStart: false }), {
      writes: [sessionStartEntry('s'), msg('a')],
      answers: [{ write: 1 }],
    });
    assert.deepStrictEqual(planAppend('s', [start('k'), msg('a')], { isNew: true, hasSessionStart: false }), {
      writes: [start('k'), msg('a')],
      answers: [{ write: 0 }, { write: 1 }],
    });
  });

  it('every later session/start is answered by the one the session has or this append writes', () => {
    assert.deepStrictEqual(planAppend('s', [msg('a'), start('x')], { isNew: true, hasSessionStart: false }).answers, [{ write: 1 }, { write: 0 }]);
    assert.deepStrictEqual(planAppend('s', [start('x'), msg('a')], { isNew: false, hasSessionStart: true }), {
      writes: [msg('a')],
      answers: ['sessionStart', { write: 0 }],
    });
    // An imported session without a start gets the first one it is given, once.
    assert.deepStrictEqual(planAppend('s', [msg('a'), start('x'), start('y')], { isNew: false, hasSessionStart: false }), {
      writes: [msg('a'), start('x')],
      answers: [{ write: 0 }, { write: 1 }, { write: 1 }],
    });
  });

  it('an empty append plans nothing, not even a bootstrap', () => {
    assert.deepStrictEqual(planAppend('s', [], { isNew: true, hasSessionStart: false }), { writes: [], answers: [] });
  });
});
