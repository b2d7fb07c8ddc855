import * as assert from 'assert';
import type { CompactionNotice } from '../../../src/agent/turnEvent';
import { compactionSentence } from '../../../src/extension/chat/compactionSentence';
import type { FactKind } from '../../../src/tape/audit/compactionAudit';

type Totals = CompactionNotice['totals'];
const totals = (t: Partial<Record<FactKind, [facts: number, inSummary: number]>>): Totals => {
  const of = (k: FactKind) => ({ facts: t[k]?.[0] ?? 0, inSummary: t[k]?.[1] ?? 0 });
  return { path: of('path'), command: of('command'), error: of('error'), request: of('request'), tool: of('tool') };
};
const notice = (t: Totals, anchorName = 'compaction/auto'): CompactionNotice => ({ anchorName, anchorEntryId: 12, totals: t });

describe('the chat notice of a compaction: what its summary kept and left out', () => {
  it('names where the next request starts, then each kind with facts (tools left out) and how many the model is given back', () => {
    assert.strictEqual(
      compactionSentence(notice(totals({ path: [23, 4], command: [9, 1], error: [2, 0], tool: [5, 2] }))),
      'Compacted: the next request starts from the summary anchor `compaction/auto` (entry #12); nothing was deleted. ' +
        'The summary keeps 4 of 23 files, 1 of 9 commands, 0 of 2 errors; the 29 it left out are listed for the model after it.',
    );
  });

  it('counts requests, takes the noun from the total, and says one when one is left out', () => {
    assert.strictEqual(
      compactionSentence(notice(totals({ path: [1, 1], request: [2, 1] }), 'compaction/manual')),
      'Compacted: the next request starts from the summary anchor `compaction/manual` (entry #12); nothing was deleted. ' +
        'The summary keeps 1 of 1 file, 1 of 2 requests; the one it left out is listed for the model after it.',
    );
  });

  it('says so when the summary left nothing out', () => {
    assert.match(compactionSentence(notice(totals({ command: [3, 3], tool: [4, 1] }))), /The summary keeps 3 of 3 commands; it left nothing out\.$/);
  });

  it('past the 40 facts the anchor lists, says how many of the missed ones the model gets, and in what order', () => {
    assert.match(
      compactionSentence(notice(totals({ path: [1200, 10], command: [30, 0], error: [1, 1] }))),
      /The summary keeps 10 of 1,200 files, 0 of 30 commands, 1 of 1 error; 40 of the 1,220 it left out are listed for the model after it \(errors first, then commands, files and requests\)\.$/,
    );
  });

  it('with no files, commands, errors or requests in the range, says there was nothing to check', () => {
    assert.match(
      compactionSentence(notice(totals({ tool: [2, 0] }))),
      /nothing was deleted\. The range it replaced names no files, commands, errors or requests to check its summary against\.$/,
    );
  });

  it("keeps the tape's anchor name inside its code span, backticks, line breaks and markup included", () => {
    const text = compactionSentence(notice(totals({}), 'compaction/x` **bold** [link](http://e)\n# heading'));
    assert.ok(text.includes('``compaction/x` **bold** [link](http://e) # heading``'), text);
    assert.ok(!text.includes('\n'), 'one paragraph');
  });

  it("as plain text (the palette command's message), the anchor name as it is", () => {
    assert.strictEqual(
      compactionSentence(notice(totals({ error: [1, 0] }), 'compaction/manual'), (name) => name),
      'Compacted: the next request starts from the summary anchor compaction/manual (entry #12); nothing was deleted. ' +
        'The summary keeps 0 of 1 error; the one it left out is listed for the model after it.',
    );
  });
});
