import * as assert from 'assert';
import { entryLine, entryLines } from '../../../src/replay/entryLines';
import { parseReplayDocumentPath, replayDocumentPath } from '../../../src/replay/replayDocument';
import { chooseSession } from '../../../src/replay/replaySession';
import type { SessionSummary } from '../../../src/store/queries';
import { TapeBuilder } from '../tape/tapeBuilder';

describe('replay documents and sessions', () => {
  it('addresses a session of a tape file and reads the address back, however VS Code re-encodes it', () => {
    const tape = '/home/me/my tapes/a#1?.tape.sqlite';
    const session = 'chat-1::fork::f.1 é?#';
    const p = replayDocumentPath(tape, session);
    assert.match(p, /^agent-tape-replay:\/[^?#]*\.tape-replay\?[^#]*$/);
    assert.deepStrictEqual(parseReplayDocumentPath(p), { tapeFile: tape, sessionId: session });
    // As vscode.Uri.toString() writes it: ':' in the path escaped, '/' in the query left as it is.
    assert.deepStrictEqual(parseReplayDocumentPath('agent-tape-replay:/s%3A%3Afork%3A%3Af1.tape-replay?/tmp/x.tape.jsonl'), {
      tapeFile: '/tmp/x.tape.jsonl',
      sessionId: 's::fork::f1',
    });
    assert.strictEqual(parseReplayDocumentPath('/tmp/x.tape.jsonl'), null);
    assert.strictEqual(parseReplayDocumentPath('agent-tape-replay:/s.tape-replay?%E0%A4%A'), null, 'a broken escape is no address');
  });

  it('renders one entry per line, as plain text: line breaks and control characters cannot split or style a line', () => {
    const t = new TapeBuilder('s');
    t.anchor('session/start', {});
    t.user('u1', 'two\nlines\r\nand <b>markup</b>\u001b[31m red \u2028 sep');
    t.event('custom/\u0007bell', { ok: true });
    const doc = entryLines(t.entries);
    assert.strictEqual(doc.split('\n').length, 3);
    assert.strictEqual(entryLine(t.entries[1]), '#2 message message/user: two lines and <b>markup</b>\\u001b[31m red sep');
    assert.strictEqual(entryLine(t.entries[2]), '#3 event custom/?bell: {"ok":true}');
  });

  it('replays the session asked for, else the only or most recently written one, and names the sessions there are', () => {
    const s = (sessionId: string, lastCreatedAt: number): SessionSummary => ({
      sessionId,
      headEntryId: 1,
      entryCount: 1,
      anchorCount: 1,
      firstCreatedAt: 0,
      lastCreatedAt,
    });
    assert.strictEqual(chooseSession([s('a', 5), s('b', 9), s('c', 7)], undefined), 'b');
    assert.strictEqual(chooseSession([s('a', 5), s('b', 9)], 'a'), 'a');
    assert.throws(() => chooseSession([s('a', 5)], 'z'), /the tape has no session "z"; it has "a"$/);
    assert.throws(() => chooseSession([], undefined), /the tape has no sessions to replay/);
  });
});
