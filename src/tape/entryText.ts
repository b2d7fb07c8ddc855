import type { JsonObject, Kind } from './entry';

/** Structured values as text a person would search for: keys and values, one per line. */
export function readable(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'string') return v;
  if (typeof v !== 'object') return String(v);
  if (Array.isArray(v)) return v.map(readable).filter(Boolean).join('\n');
  return Object.entries(v as JsonObject)
    .map(([k, x]) => `${k}: ${readable(x)}`)
    .join('\n');
}

/** The searchable text of an entry: what it says, not its JSON syntax. */
export function entryText(kind: Kind, name: string, p: JsonObject): string {
  switch (kind) {
    case 'message':
    case 'system':
      return readable(p.content);
    case 'tool_call':
      return `${name}\n${readable(p.input)}`;
    case 'tool_result':
      return `${name}\n${readable(p.output)}`;
    case 'error':
      return `${readable(p.message)}\n${readable(p.details)}`;
    case 'anchor':
      return `${name}\n${readable(p.state)}`;
    case 'event':
      return `${name}\n${readable(p.data)}`;
  }
}
