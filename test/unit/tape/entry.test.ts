import * as assert from 'assert';
import { KINDS, TapeValidationError, validateEntry, validateNewEntry, type NewEntry } from '../../../src/tape/entry';
import { MAX_ENTRY_JSON_BYTES } from '../../../src/tape/entrySize';

const refused = (value: unknown, pattern: RegExp) =>
  assert.throws(
    () => validateNewEntry(value),
    (e: Error) => e instanceof TapeValidationError && pattern.test(e.message),
  );

describe('entry model (SPEC 2.1)', () => {
  const msg = (extra: Record<string, unknown> = {}): NewEntry => ({
    kind: 'message',
    name: 'message/user',
    payload: { messageId: 'm1', role: 'user', status: 'sent', orderSeq: 1, content: 'hi', ...extra },
  });

  it('accepts each known kind with its payload and fills defaults', () => {
    const e = validateNewEntry(msg());
    assert.strictEqual(e.provenanceKey, null);
    assert.deepStrictEqual(e.meta, {});
    for (const ok of [
      { kind: 'system', name: 'system/prompt', payload: { content: 'be brief', hash: 'h' } },
      { kind: 'tool_call', name: 'read_file', payload: { messageId: 'm', toolCallId: 't', name: 'read_file', input: { path: 'a' } } },
      { kind: 'tool_result', name: 'read_file', payload: { messageId: 'm', toolCallId: 't', status: 'ok', output: 'x', truncated: false } },
      { kind: 'error', name: 'error/provider', payload: { kind: 'provider', message: 'rate limited' } },
      { kind: 'anchor', name: 'handoff/review', payload: { name: 'handoff/review', state: { summary: 's' } } },
      { kind: 'anchor', name: 'compaction/auto', payload: { name: 'compaction/auto', state: { summary: 's', cursorOrderSeq: 4, sourceEntryIds: [2, 3] } } },
      { kind: 'event', name: 'message/retracted', payload: { name: 'message/retracted', data: { messageId: 'm', reason: 'wrong' } } },
    ])
      assert.doesNotThrow(() => validateNewEntry(ok), `${ok.kind} ${ok.name}`);
    assert.strictEqual(KINDS.length, 7);
  });

  it('keeps unknown names of a known kind, and unknown payload fields, exactly as written', () => {
    const e = validateNewEntry({ kind: 'event', name: 'plugin/something-new', payload: { name: 'plugin/something-new', data: [1, 2], extra: { x: 1 } } });
    assert.deepStrictEqual(e.payload, { name: 'plugin/something-new', data: [1, 2], extra: { x: 1 } });
    assert.deepStrictEqual(validateNewEntry(msg({ future: true })).payload.future, true);
    assert.strictEqual(validateNewEntry({ ...msg(), name: 'message/note' }).name, 'message/note');
  });

  it('refuses unknown kinds and names the kinds it knows', () =>
    refused({ kind: 'memo', name: 'x', payload: {} }, /unknown kind "memo"; expected one of message, system/));

  it('refuses payloads that break their kind or known name, saying which field', () => {
    refused(msg({ status: 'done' }), /\(message message\/user\) payload: ✖ Invalid option.*\n {2}→ at status$/);
    refused(msg({ role: 'assistant' }), /payload\.role must be "user" for message\/user/);
    refused(
      { kind: 'tool_call', name: 'read_file', payload: { messageId: 'm', toolCallId: 't', name: 'write_file', input: {} } },
      /must equal the entry name "read_file"/,
    );
    refused({ kind: 'error', name: 'provider', payload: { kind: 'provider', message: 'x' } }, /error names start with "error\/"/);
    refused(
      { kind: 'anchor', name: 'compaction/auto', payload: { name: 'compaction/auto', state: { summary: 's' } } },
      /state: ✖ .*\n {2}→ at cursorOrderSeq$/,
    );
    refused({ kind: 'event', name: 'message/retracted', payload: { name: 'message/retracted', data: {} } }, /data: ✖ .*\n {2}→ at messageId$/);
    refused({ kind: 'event', name: 'turn/start', payload: { name: 'turn/end', data: {} } }, /must equal the entry name "turn\/start"/);
    refused({ ...msg(), provenanceKey: '' }, /provenanceKey/);
    refused({ ...msg(), payload: 'text' }, /payload/);
  });

  it('refuses values JSON cannot hold, so what is stored is what the caller appended', () => {
    refused(msg({ n: Number.NaN }), /payload\.n: NaN is not a JSON number/);
    refused(msg({ deep: { list: [1, undefined] } }), /payload\.deep\.list\.1: undefined is not a JSON value/);
    refused(msg({ when: new Date(0) }), /payload\.when: a Date is not a JSON value/);
    refused(msg({ big: BigInt(1) }), /payload\.big: bigint is not a JSON value/);
    refused({ ...msg(), meta: { f: () => 1 } }, /meta\.f: function is not a JSON value/);
  });

  it('refuses an entry over the size limit, payload and meta counted together, without measuring the whole of it', () => {
    const half = 'x'.repeat(MAX_ENTRY_JSON_BYTES / 2);
    assert.doesNotThrow(() => validateNewEntry(msg({ half })));
    refused({ ...msg({ half }), meta: { half } }, /payload and meta take at least 16 MiB as JSON; one entry holds at most 16 MiB/);
    refused(msg({ parts: [half, half] }), /at least 16 MiB/);
    refused(msg({ text: 'y'.repeat(MAX_ENTRY_JSON_BYTES) }), /at least 16 MiB/);
    // The lower bound counts what the text must hold, never more: an entry just below the limit passes.
    const fits = 'z'.repeat(MAX_ENTRY_JSON_BYTES - 1024);
    assert.ok(JSON.stringify(msg({ fits }).payload).length <= MAX_ENTRY_JSON_BYTES);
    assert.doesNotThrow(() => validateNewEntry(msg({ fits })));
  });

  it('reserves the provenance key "session/start" for the bootstrap anchor', () => {
    refused({ ...msg(), provenanceKey: 'session/start' }, /provenance key "session\/start" is reserved/);
    assert.doesNotThrow(() =>
      validateNewEntry({ kind: 'anchor', name: 'session/start', provenanceKey: 'session/start', payload: { name: 'session/start', state: {} } }),
    );
  });

  it('validates stored entries (ids, timestamps) as read from a file', () => {
    const stored = { ...msg(), sessionId: 's', entryId: 1, provenanceKey: null, meta: {}, createdAt: 1 };
    assert.strictEqual(validateEntry(stored).entryId, 1);
    assert.throws(() => validateEntry({ ...stored, entryId: 0 }, 'line 3'), /^TapeValidationError: line 3: ✖ .*\n {2}→ at entryId$/);
    assert.throws(() => validateEntry({ ...stored, sessionId: '' }), /sessionId/);
  });
});
