import * as assert from 'assert';
import { backfillSession } from '../../../src/agent/backfill';
import { sourceKey } from '../../../src/ingest/format';
import type { TapeStore } from '../../../src/store/tapeStore';
import type { Entry, NewEntry } from '../../../src/tape/entry';
import { discardEntry, linkEntry, planMerge, receiptKey } from '../../../src/tape/fork';
import { ingestedKeyPrefix } from '../../../src/tape/ingestedSession';
import { viewProvenanceKey } from '../../../src/tape/manifest';
import { namedProvenanceKey, provenanceKeyOf } from '../../../src/tape/provenanceKey';
import { interruptedResultEntry } from '../../../src/tape/toolPairs';
import { attemptEntry, messageEntry, toolErrorEntry, turnStartEntry } from '../../../src/tape/turnEntries';

// Keys on users' tapes must keep their bytes: each expected key is what the call site wrote before
// the encoder was shared, for ids holding "/", a space, "%", ":", "?" and a non-ASCII letter.
const SESSION = 'a/b c';
const TURN = { sessionId: SESSION, turnId: 't%1' };

describe('provenance keys', () => {
  it('encode every part, or every part after a name written as is', () => {
    assert.strictEqual(provenanceKeyOf('x/y', 'é', 3), 'x%2Fy/%C3%A9/3');
    assert.strictEqual(namedProvenanceKey('x/y', 'é', 3), 'x/y/%C3%A9/3');
  });

  it("keep the agent's turn entry keys (every part encoded, the name too)", () => {
    assert.strictEqual(turnStartEntry(TURN, 4).provenanceKey, 'turn%2Fstart/a%2Fb%20c/t%251');
    assert.strictEqual(
      messageEntry(TURN, { messageId: 'm/é', role: 'user', orderSeq: 1, content: 'hi', status: 'pending', revision: 2 }).provenanceKey,
      'message/a%2Fb%20c/m%2F%C3%A9/pending-2',
    );
    assert.strictEqual(toolErrorEntry(TURN, 'm/é', 'call:1?x', 'read_file', 'tool', 'no').provenanceKey, 'error%2Ftool/a%2Fb%20c/m%2F%C3%A9/call%3A1%3Fx');
    const attempt = attemptEntry(TURN, 3, { attempt: 2, status: 'ok', retryDecision: 'none', durationMs: 5 });
    assert.strictEqual(attempt.provenanceKey, 'provider%2Fattempt/a%2Fb%20c/t%251/3/2');
  });

  it('keep the ingest keys and their prefix', () => {
    assert.strictEqual(sourceKey(SESSION, 'tool_result', 'm/é', 'call:1?x'), 'a%2Fb%20c/tool_result/m%2F%C3%A9/call%3A1%3Fx');
    assert.strictEqual(ingestedKeyPrefix(SESSION), 'a%2Fb%20c/');
  });

  it("keep the backfill marker's key", async () => {
    let written: NewEntry[] = [];
    const store = {
      headEntryId: () => 0,
      appendMany: async (_sessionId: string, entries: NewEntry[]) => {
        written = entries;
        return [];
      },
    } as unknown as TapeStore;
    await backfillSession(store, SESSION, [{ prompt: 'p', response: 'r' }], 'chat');
    assert.deepStrictEqual(
      written.map((e) => e.provenanceKey),
      ['message/a%2Fb%20c/backfill-1%2Fuser/sent', 'message/a%2Fb%20c/backfill-1%2Fassistant/sent', 'session/backfilled/a%2Fb%20c'],
    );
  });

  it("keep the domain's named keys: view, merge, discard, link, crash repair", () => {
    assert.strictEqual(viewProvenanceKey(SESSION, 't%1', 7), 'view/a%2Fb%20c/t%251/7');
    const fork = 'p::fork::f/1';
    const delta: Entry = {
      sessionId: fork,
      entryId: 12,
      kind: 'event',
      name: 'x',
      provenanceKey: null,
      payload: { name: 'x', data: {} },
      meta: {},
      createdAt: 1,
    };
    const { entries } = planMerge({
      forkSessionId: fork,
      fork: { parentSessionId: 'p', parentHeadEntryId: 3, forkId: 'f' },
      delta: [delta],
      forkHeadEntryId: 12,
      parentHeadAtMerge: 3,
      parentOrderSeqAtFork: 0,
      parentOrderSeqNow: 0,
    });
    assert.deepStrictEqual(
      entries.map((e) => e.provenanceKey),
      ['fork/merge/p%3A%3Afork%3A%3Af%2F1/12', 'fork/merge/p%3A%3Afork%3A%3Af%2F1'],
    );
    assert.strictEqual(receiptKey('fork/discard', fork), 'fork/discard/p%3A%3Afork%3A%3Af%2F1');
    const discard = discardEntry({ forkSessionId: fork, forkId: 'f', forkHeadEntryId: 12, reason: null });
    assert.strictEqual(discard.provenanceKey, 'fork/discard/p%3A%3Afork%3A%3Af%2F1');
    assert.strictEqual(linkEntry({ childSessionId: 'p::subagent::x y' }).provenanceKey, 'subagent/linked/p%3A%3Asubagent%3A%3Ax%20y/0');
    assert.strictEqual(linkEntry({ childSessionId: 'c', childHeadEntryId: 9 }).provenanceKey, 'subagent/linked/c/9');
    assert.strictEqual(
      interruptedResultEntry({ messageId: 'm/é', toolCallId: 'call:1?x', name: 'read_file', entryId: 4 }).provenanceKey,
      'interrupted/m%2F%C3%A9/call%3A1%3Fx',
    );
  });
});
