import { jsonlLine } from '../store/jsonl';
import type { RawEntry } from '../store/queries';
import type { Entry } from '../tape/entry';
import { summaryOf } from '../tape/entrySummary';
import type { EntryRow } from '../protocol/inspector';

export const entryRowOf = (e: Entry): EntryRow => ({
  entryId: e.entryId,
  kind: e.kind,
  name: e.name,
  summary: summaryOf(e.kind, e.name, e.payload),
  createdAt: e.createdAt,
});

/** The entry as stored, payload and meta byte for byte: the interchange line without its newline. */
export const storedJsonOf = (raw: RawEntry): string => jsonlLine(raw).slice(0, -1);
