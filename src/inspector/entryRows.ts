import { oneLine } from '../agent/oneLine';
import { jsonlLine } from '../store/jsonl';
import type { RawEntry } from '../store/queries';
import { textOf, type Entry, type JsonObject, type Kind } from '../tape/entry';
import type { EntryRow } from '../protocol/inspector';

/** The protocol's bound on a row summary, ellipsis included. */
export const SUMMARY_MAX = 200;

const record = (v: unknown): JsonObject => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {});

/** What a person scans a list for: the words of the payload, not its JSON framing. */
function summaryText(kind: Kind, name: string, p: JsonObject): string {
  switch (kind) {
    case 'message':
    case 'system':
      return textOf(p.content ?? '');
    case 'tool_call':
      return `${name} ${textOf(p.input ?? null)}`;
    case 'tool_result':
      return `${textOf(p.status ?? '')}: ${textOf(p.output ?? '')}`;
    case 'error':
      return `${textOf(p.kind ?? '')}: ${textOf(p.message ?? '')}`;
    case 'anchor': {
      const summary = record(p.state).summary;
      return typeof summary === 'string' ? summary : textOf(p.state ?? null);
    }
    case 'event':
      return textOf(p.data ?? null);
  }
}

/** A payload on one line of at most SUMMARY_MAX characters (`oneLine` puts its ellipsis after the bound, so a cut line loses one more). */
export function summaryOf(kind: Kind, name: string, payload: JsonObject): string {
  const line = oneLine(summaryText(kind, name, payload), SUMMARY_MAX);
  return line.length > SUMMARY_MAX ? `${line.slice(0, SUMMARY_MAX - 1)}…` : line;
}

export const entryRowOf = (e: Entry): EntryRow => ({ entryId: e.entryId, kind: e.kind, name: e.name, summary: summaryOf(e.kind, e.name, e.payload), createdAt: e.createdAt });

/** The entry as stored, payload and meta byte for byte: the interchange line without its newline. */
export const storedJsonOf = (raw: RawEntry): string => jsonlLine(raw).slice(0, -1);
