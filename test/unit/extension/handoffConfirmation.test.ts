import * as assert from 'assert';
import { handoffConfirmation } from '../../../src/extension/tools/handoffConfirmation';

const TARGET = { sessionId: 'chat-1f2e', title: 'Fix the parser' };

describe('handoffConfirmation (tape_handoff called from another chat)', () => {
  it('asks, naming the handoff, the session and what changes, with the summary as code', () => {
    const c = handoffConfirmation({ name: 'phase-2', summary: 'Parser done.\nNext: the CLI.' }, TARGET);
    assert.strictEqual(c?.title, 'Leave a handoff on the tape?');
    assert.strictEqual(
      c.message,
      "Another chat asks to leave the handoff `handoff/phase-2` in the tape's session `Fix the parser` (`chat-1f2e`), the one `@tape` used last. From `@tape`'s next request there, the context starts from this summary instead of the history before it (nothing is deleted).\n\n```\nParser done.\nNext: the CLI.\n```",
    );
  });

  it('shows the state as JSON, and a session without a title by its id', () => {
    const c = handoffConfirmation({ name: 'x', summary: 's', state: { step: 3 } }, { sessionId: 'chat-9', title: null });
    assert.match(c?.message ?? '', /in the tape's session `chat-9`, the one/);
    assert.ok(c?.message.endsWith('State carried over:\n\n```json\n{\n  "step": 3\n}\n```'), c?.message);
  });

  it('keeps a hostile title and summary code: no link, image or heading', () => {
    const c = handoffConfirmation({ name: 'x', summary: '```\n# pwned\n![i](http://e/i.png)' }, { sessionId: 's', title: 'a\r![i](http://e/)\n# h' });
    assert.ok(c?.message.includes('session `a ![i](http://e/) # h` (`s`)'), c?.message);
    assert.ok(c?.message.endsWith('\n````\n```\n# pwned\n![i](http://e/i.png)\n````'), c?.message);
  });

  it('asks nothing when there is no session to write to or the tool would refuse the input', () => {
    assert.strictEqual(handoffConfirmation({ name: 'phase-2', summary: 's' }, undefined), undefined);
    for (const bad of [{ name: 'Bad Name', summary: 's' }, { name: 'ok', summary: '  ' }, 'x', null])
      assert.strictEqual(handoffConfirmation(bad, TARGET), undefined, JSON.stringify(bad));
  });
});
