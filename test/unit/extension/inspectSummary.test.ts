import * as assert from 'assert';
import { OpenTape } from '../../../src/agent/session/openTape';
import { handoffAnchorEntry } from '../../../src/tape/handoffAnchor';
import { inspectSummary } from '../../../src/extension/chat/inspectSummary';
import { TapeStore } from '../../../src/store/tapeStore';
import { demoStore, result, call } from '../agent/tapeToolPort/fixture';

describe("/inspect: a session's tape at a glance", () => {
  it('counts entries by kind, requests, tokens and tools, and marks the anchor in force', async () => {
    const store = await demoStore();
    await store.append('s1', {
      kind: 'event',
      name: 'provider/attempt',
      payload: { name: 'provider/attempt', data: { usage: { inputTokens: 1200, outputTokens: 30, cachedTokens: 1000 } } },
    });
    await store.append('s1', handoffAnchorEntry('phase-2', 'db done'));
    await store.appendMany('s1', [call('a2', 't2', 'read_file', { path: 'x' }), result('a2', 't2', 'read_file', 'oops')]);
    const text = inspectSummary(new OpenTape(store).session('s1'));
    assert.match(text, /session `s1`, 11 entries/);
    assert.match(text, /\| `message` \| 3 \|/);
    assert.match(text, /\| `tool_call` \| 2 \|/);
    assert.match(text, /tokens in 1,200, out 30, cached 1,000/);
    assert.match(text, /- #1 `session\/start`\n- #9 `handoff\/phase-2` \*\*in force\*\*/);
    assert.match(text, /`read_file` ×2/);
  });

  it('keeps tape text inside its code span, backticks and markup included', async () => {
    const store = await TapeStore.inMemory();
    await store.append('evil`s', handoffAnchorEntry('x', 'y'));
    const text = inspectSummary(new OpenTape(store).session('evil`s'));
    assert.ok(text.includes('``evil`s``'), text);
  });

  it('says so when the session has no entries yet', async () => {
    assert.match(inspectSummary(new OpenTape(await TapeStore.inMemory()).session('chat-new')), /no entries for this chat yet/);
  });
});
