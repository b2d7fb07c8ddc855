import type { Entry, Kind } from '../tape/entry';
import { foldRowOf } from '../tape/fold';

/**
 * One entries row as positional values, in the order of `INSERT_ROW`'s parameters. It is also the
 * journal's record format, so replay binds journal values straight into the insert statement.
 * Payload and meta are kept as JSON text: what was imported is exported byte for byte.
 */
export type RowTuple = [
  sessionId: string,
  entryId: number,
  kind: Kind,
  name: string,
  provenanceKey: string | null,
  createdAt: number,
  messageId: string | null,
  toolCallId: string | null,
  status: string | null,
  orderSeq: number | null,
  role: string | null,
  payload: string,
  meta: string,
];

export const INSERT_ROW = `INSERT INTO entries (session_id, entry_id, kind, name, provenance_key, created_at,
  message_id, tool_call_id, status, order_seq, role, payload, meta) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)`;

export function rowTupleOf(entry: Entry, payloadText: string, metaText: string): RowTuple {
  const f = foldRowOf(entry);
  return [entry.sessionId, entry.entryId, entry.kind, entry.name, entry.provenanceKey, entry.createdAt,
    f.messageId, f.toolCallId, f.status, f.orderSeq, f.role, payloadText, metaText];
}
