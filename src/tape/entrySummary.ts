import { textOf, type JsonObject, type Kind } from './entry';
import { oneLine } from './oneLine';

/** The bound on an entry's summary, ellipsis included (the inspector protocol's rows carry it). */
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
