import type { SqlValue } from 'sql.js';
import type { Entry, Kind } from '../tape/entry';
import { foldRowOf, type FoldRow } from '../tape/fold';
import { isInterruptedResultKey } from '../tape/interruptedKey';

/**
 * One entries row as positional values, in the order of `INSERT_ROW`'s parameters. Payload and
 * meta are kept as JSON text: what was imported is exported byte for byte.
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

/** The columns before payload and meta: small values. */
const HEAD = 11;

/**
 * A row as INSERT_ROW binds it: payload and meta, the long strings, as UTF-8 bytes. Node encodes
 * them natively and sql.js copies bytes into WASM in one go, where it would encode strings
 * character by character in JS (inserts got about 30% faster); the statement casts them back to
 * TEXT. The same bytes go into the journal record.
 */
export type RowParams = SqlValue[];

export const INSERT_ROW = `INSERT INTO entries (session_id, entry_id, kind, name, provenance_key, created_at,
  message_id, tool_call_id, status, order_seq, role, payload, meta)
  VALUES (?,?,?,?,?,?,?,?,?,?,?,CAST(? AS TEXT),CAST(? AS TEXT))`;

export function rowTupleOf(entry: Entry, payloadText: string, metaText: string): RowTuple {
  const f = foldRowOf(entry);
  return [
    entry.sessionId,
    entry.entryId,
    entry.kind,
    entry.name,
    entry.provenanceKey,
    entry.createdAt,
    f.messageId,
    f.toolCallId,
    f.status,
    f.orderSeq,
    f.role,
    payloadText,
    metaText,
  ];
}

/** The fold's view of a row (its first columns are the same in a RowTuple and in RowParams). */
export const foldRowOfRow = (r: RowTuple | RowParams): FoldRow =>
  ({
    entryId: r[1],
    kind: r[2],
    name: r[3],
    messageId: r[6],
    toolCallId: r[7],
    status: r[8],
    orderSeq: r[9],
    role: r[10],
    interrupted: r[2] === 'tool_result' && isInterruptedResultKey(r[4] as string | null),
  }) as FoldRow;

/** The bytes of a row's payload and meta JSON: what MAX_ENTRY_JSON_BYTES bounds. */
export const jsonBytesOf = (p: RowParams): number => (p[HEAD] as Uint8Array).length + (p[HEAD + 1] as Uint8Array).length;

export function paramsOf(r: RowTuple): RowParams {
  const p: RowParams = r.slice(0, HEAD);
  p.push(Buffer.from(r[11]), Buffer.from(r[12]));
  return p;
}

/*
 * A journal record's body: the rows of one transaction, each as
 *   u32 head length | u32 payload length | u32 meta length | head | payload | meta   (little endian)
 * where head is the JSON array of the small columns. Payload text is stored once as it is, not
 * escaped again inside a JSON string (records were about 40% larger that way), and replay binds
 * it straight from the record.
 */
const ROW_FRAME = 12;

export function encodeRows(rows: readonly RowParams[]): Buffer {
  const parts: Buffer[] = [];
  for (const p of rows) {
    const head = Buffer.from(JSON.stringify(p.slice(0, HEAD)));
    const payload = p[HEAD] as Uint8Array;
    const meta = p[HEAD + 1] as Uint8Array;
    const frame = Buffer.allocUnsafe(ROW_FRAME);
    frame.writeUInt32LE(head.length, 0);
    frame.writeUInt32LE(payload.length, 4);
    frame.writeUInt32LE(meta.length, 8);
    parts.push(frame, head, Buffer.from(payload.buffer, payload.byteOffset, payload.length), Buffer.from(meta.buffer, meta.byteOffset, meta.length));
  }
  return Buffer.concat(parts);
}

/** The rows of a record body (payload and meta are views into `body`); throws on a malformed body. */
export function decodeRows(body: Buffer): RowParams[] {
  const rows: RowParams[] = [];
  for (let off = 0; off < body.length;) {
    if (off + ROW_FRAME > body.length) throw new Error(`row frame cut short at byte ${off}`);
    const headLen = body.readUInt32LE(off);
    const payloadLen = body.readUInt32LE(off + 4);
    const metaLen = body.readUInt32LE(off + 8);
    const headAt = off + ROW_FRAME;
    const payloadAt = headAt + headLen;
    const metaAt = payloadAt + payloadLen;
    off = metaAt + metaLen;
    if (off > body.length) throw new Error(`row at byte ${headAt - ROW_FRAME} runs past the record`);
    const p = JSON.parse(body.toString('utf8', headAt, payloadAt)) as RowParams;
    if (!Array.isArray(p) || p.length !== HEAD) throw new Error(`row at byte ${headAt - ROW_FRAME} has ${Array.isArray(p) ? p.length : 'no'} columns`);
    p.push(body.subarray(payloadAt, metaAt), body.subarray(metaAt, off));
    rows.push(p);
  }
  return rows;
}
