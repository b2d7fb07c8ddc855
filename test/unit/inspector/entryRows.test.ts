import * as assert from 'assert';
import { entryRowOf, storedJsonOf } from '../../../src/inspector/entryRows';
import { entryRow } from '../../../src/protocol/inspector';
import { fixtureLines, fixtureStore } from './helpers';

describe('inspector entry rows', () => {
  it('rows of the sample tape fit the protocol; the stored JSON is the exported line byte for byte', async () => {
    const store = await fixtureStore();
    const lines = fixtureLines();
    for (const e of store.entries('inspector-sample')) entryRow.parse(entryRowOf(e));
    const row = entryRowOf(store.requireEntry('inspector-sample', 4));
    assert.deepStrictEqual(row, {
      entryId: 4,
      kind: 'message',
      name: 'message/user',
      summary: 'Read notes.md and tell me what it says <script>alert(1)</script>',
      createdAt: JSON.parse(lines[3]).createdAt,
    });
    assert.deepStrictEqual(store.rawEntries('inspector-sample').map(storedJsonOf), lines);
    await store.close();
  });
});
