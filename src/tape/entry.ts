import { SESSION_START, BOOTSTRAP_KEY, RETRACTED_EVENT, PIN_EVENT, SUMMARY_EDIT_EVENT, UNDO_EVENT } from './entryNames';
import * as z from 'zod';
import { entryTooLarge, jsonBytesAtLeast, MAX_ENTRY_JSON_BYTES } from './entrySize';
import { MAX_JSON_DEPTH, tooDeep } from './jsonDepth';

/**
 * The tape's entry model (SPEC 2.1). Kinds are a closed set; names are open. A known name gets its
 * own payload schema, an unknown name of a known kind is validated only by the kind's base schema
 * and kept as written, so tapes from newer versions survive a round trip through older ones.
 */
export const KINDS = ['message', 'system', 'tool_call', 'tool_result', 'error', 'anchor', 'event'] as const;
export type Kind = (typeof KINDS)[number];

export type JsonObject = { [key: string]: unknown };

export interface Entry {
  sessionId: string;
  entryId: number;
  kind: Kind;
  name: string;
  provenanceKey: string | null;
  payload: JsonObject;
  meta: JsonObject;
  createdAt: number;
}

/** What a caller hands to append: the store assigns `sessionId`, `entryId` and (by default) `createdAt`. */
export interface NewEntry {
  kind: Kind;
  name: string;
  provenanceKey?: string | null;
  payload: JsonObject;
  meta?: JsonObject;
  createdAt?: number;
}

const id = z.string().min(1);
// SQLite keeps text as UTF-8, where a lone surrogate turns into U+FFFD: an entry's name, key or
// session id with one would be stored as another (a name no longer its payload's copy).
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const column = id.refine((s) => !LONE_SURROGATE.test(s), 'has a lone surrogate, which UTF-8 (and so the tape) cannot hold');
const isPlainObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);
// Copied with spread, not by a record schema: that assigns key by key, so a `__proto__` key (an
// own property, as JSON.parse makes it) became the copy's prototype and vanished from the entry.
const jsonObject = z
  .custom<JsonObject>(isPlainObject, {
    error: (i) => `expected a JSON object, received ${i.input === null ? 'null' : Array.isArray(i.input) ? 'array' : typeof i.input}`,
  })
  .transform((o) => ({ ...o }));
// Payloads are loose: fields this version does not know are stored and exported unchanged.
const loose = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

export const messageStatus = z.enum(['pending', 'sent', 'error']);
export type MessageStatus = z.infer<typeof messageStatus>;

const messagePayload = loose({
  messageId: id,
  role: z.enum(['user', 'assistant']),
  status: messageStatus,
  orderSeq: z.number().finite(),
  content: z.string(),
  turnId: id.optional(),
});
const toolCallPayload = loose({ messageId: id, toolCallId: id, name: z.string().min(1), input: z.unknown() });
const toolResultPayload = loose({
  messageId: id,
  toolCallId: id,
  status: z.enum(['ok', 'error']),
  output: z.unknown(),
  truncated: z.boolean().optional(),
});
const systemPayload = loose({ content: z.string(), hash: z.string().optional() });
const errorPayload = loose({
  kind: z.enum(['provider', 'tool', 'config', 'invalid_input', 'temporary', 'not_found', 'unknown']),
  message: z.string(),
  details: z.unknown().optional(),
});
const anchorPayload = loose({ name: id, state: z.unknown() });
const eventPayload = loose({ name: id, data: z.unknown() });

const compactionState = loose({
  summary: z.string(),
  cursorOrderSeq: z.number().finite(),
  sourceEntryIds: z.array(z.number().int()).optional(),
  model: z.unknown().optional(),
  usage: z.unknown().optional(),
});

export const isSessionStart = (e: { kind: Kind; name: string }): boolean => e.kind === 'anchor' && e.name === SESSION_START;

/** Bounds of an amendment: a pin is a few facts or entries, an edited summary a page or so. */
export const PIN_MAX_ITEMS = 200;
export const PIN_FACT_MAX_CHARS = 4000;
export const SUMMARY_MAX_CHARS = 64 * 1024;

/**
 * Why `summary` is too long for an edited summary, or null. Characters are code points, as a
 * person counts them: an emoji is one, not its two UTF-16 units. Code points never outnumber the
 * units, so every summary the units' bound accepted still passes.
 */
export function summaryTooLong(summary: string): string | null {
  if (summary.length <= SUMMARY_MAX_CHARS) return null;
  const chars = [...summary].length;
  return chars <= SUMMARY_MAX_CHARS ? null : `the summary is ${chars.toLocaleString('en-US')} characters; at most ${SUMMARY_MAX_CHARS.toLocaleString('en-US')}`;
}

const entryRef = z.number().int().positive();
const pinnedFact = z.strictObject({ kind: z.string().min(1).max(32), value: z.string().min(1).max(PIN_FACT_MAX_CHARS) });
export const pinData = loose({
  anchorEntryId: entryRef,
  entryIds: z.array(entryRef).max(PIN_MAX_ITEMS).optional(),
  facts: z.array(pinnedFact).max(PIN_MAX_ITEMS).optional(),
}).refine((d) => (d.entryIds?.length ?? 0) + (d.facts?.length ?? 0) > 0, 'a pin names at least one entry or fact');
export type PinData = z.infer<typeof pinData>;
export const summaryEditData = loose({
  anchorEntryId: entryRef,
  summary: z
    .string()
    .refine((s) => s.trim() !== '', 'the summary is empty')
    .refine((s) => summaryTooLong(s) === null, `the summary is over ${SUMMARY_MAX_CHARS.toLocaleString('en-US')} characters`),
});
export const undoData = loose({ anchorEntryId: entryRef, reason: z.string().optional() });

const knownEventData: Record<string, z.ZodType> = {
  [RETRACTED_EVENT]: loose({ messageId: id, reason: z.string().optional() }),
  [PIN_EVENT]: pinData,
  [SUMMARY_EDIT_EVENT]: summaryEditData,
  [UNDO_EVENT]: undoData,
};

/** A payload value as text for a model or a person: strings as they are, anything else as JSON. */
export const textOf = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

const kindSchemas: Record<Kind, z.ZodType> = {
  message: messagePayload,
  system: systemPayload,
  tool_call: toolCallPayload,
  tool_result: toolResultPayload,
  error: errorPayload,
  anchor: anchorPayload,
  event: eventPayload,
};

export const RECONSTRUCTION_ANCHOR_PREFIXES = ['compaction/', 'handoff/', 'auto_handoff/'] as const;
export const isReconstructionAnchor = (name: string): boolean => RECONSTRUCTION_ANCHOR_PREFIXES.some((p) => name.startsWith(p));

export class TapeValidationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TapeValidationError';
  }
}

function check(schema: z.ZodType, value: unknown, where: string): void {
  const r = schema.safeParse(value);
  if (!r.success) throw new TapeValidationError(`${where}: ${z.prettifyError(r.error)}`);
}

/** Name-specific rules on top of the kind's schema. */
function checkName(e: NewEntry, where: string): void {
  const p = e.payload;
  switch (e.kind) {
    case 'message': {
      if (e.name === 'message/user' || e.name === 'message/assistant') {
        const role = e.name.slice('message/'.length);
        if (p.role !== role) throw new TapeValidationError(`${where}: payload.role must be "${role}" for ${e.name}`);
      }
      return;
    }
    case 'tool_call':
      // The tool name lives in both places for readability of raw rows; they must agree.
      if (p.name !== e.name) throw new TapeValidationError(`${where}: payload.name "${String(p.name)}" must equal the entry name "${e.name}"`);
      return;
    case 'error':
      if (!e.name.startsWith('error/')) throw new TapeValidationError(`${where}: error names start with "error/", got "${e.name}"`);
      return;
    case 'anchor':
    case 'event':
      if (p.name !== e.name) {
        throw new TapeValidationError(`${where}: payload.name "${String(p.name)}" must equal the entry name "${e.name}"`);
      }
      if (e.kind === 'anchor' && e.name.startsWith('compaction/')) check(compactionState, p.state, `${where} state`);
      if (e.kind === 'event' && knownEventData[e.name]) check(knownEventData[e.name], p.data, `${where} data`);
      return;
    case 'tool_result':
    case 'system':
      return;
  }
}

const newEntryShape = z.object({
  kind: z.enum(KINDS, { error: (i) => `unknown kind ${JSON.stringify(i.input)}; expected one of ${KINDS.join(', ')}` }),
  name: column,
  provenanceKey: column.nullable().optional(),
  payload: jsonObject,
  meta: jsonObject.optional(),
  createdAt: z.number().int().nonnegative().optional(),
});

/**
 * Where `value` stops being JSON, or null. The tape stores JSON text, and JSON.stringify would
 * quietly drop `undefined`, turn NaN into null and a Date into a string (and throw on a BigInt),
 * so the entry an append returns would differ from the one stored. A plain walk: zod's json()
 * schema costs several times more on every append. `depth` is the level of `value` in its entry
 * (jsonDepth.ts): the walk stops at the limit, before the stack does, and says so at the field.
 */
function nonJson(value: unknown, path: string, depth: number): string | null {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return null;
    case 'number':
      return Number.isFinite(value) ? null : `${path}: ${value} is not a JSON number`;
    case 'object': {
      if (value === null) return null;
      if (depth > MAX_JSON_DEPTH) return `${path.split('.', 1)[0]}: ${tooDeep()}`;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const bad = nonJson(value[i], `${path}.${i}`, depth + 1);
          if (bad) return bad;
        }
        return null;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return `${path}: a ${value.constructor?.name ?? 'class instance'} is not a JSON value`;
      for (const k in value) {
        const bad = nonJson((value as JsonObject)[k], `${path}.${k}`, depth + 1);
        if (bad) return bad;
      }
      return null;
    }
    default:
      return `${path}: ${typeof value} is not a JSON value`;
  }
}

/** The entry shape, then the payload against its kind and name: errors say what is wrong and where. */
function validateWith<T extends NewEntry>(shape: z.ZodType, value: unknown, where: string): T {
  const r = shape.safeParse(value);
  if (!r.success) throw new TapeValidationError(`${where}: ${z.prettifyError(r.error)}`);
  const e = r.data as T;
  // The entry is level 1, its payload and meta level 2.
  const bad = nonJson(e.payload, 'payload', 2) ?? (e.meta === undefined ? null : nonJson(e.meta, 'meta', 2));
  if (bad) throw new TapeValidationError(`${where}: ${bad}`);
  // Before the kind's schema: nothing past this line may copy or scan a value of any size.
  const bytes = jsonBytesAtLeast(e.payload, MAX_ENTRY_JSON_BYTES) + jsonBytesAtLeast(e.meta ?? {}, MAX_ENTRY_JSON_BYTES);
  if (bytes > MAX_ENTRY_JSON_BYTES) throw new TapeValidationError(`${where}: ${entryTooLarge(bytes, true)}`);
  if (e.provenanceKey === BOOTSTRAP_KEY && !isSessionStart(e)) {
    throw new TapeValidationError(`${where}: provenance key "${BOOTSTRAP_KEY}" is reserved for the session/start anchor`);
  }
  check(kindSchemas[e.kind], e.payload, `${where} (${e.kind} ${e.name}) payload`);
  checkName(e, `${where} (${e.kind} ${e.name})`);
  return e;
}

/**
 * Validates an entry before it is written. Returns a normalised copy (defaults filled in) or throws
 * a TapeValidationError that says what is wrong and where; nothing is written on a throw.
 */
export function validateNewEntry(value: unknown, where = 'entry'): NewEntry {
  const e = validateWith<NewEntry>(newEntryShape, value, where);
  return { ...e, provenanceKey: e.provenanceKey ?? null, meta: e.meta ?? {} };
}

const storedEntryShape = newEntryShape.extend({
  sessionId: column,
  entryId: z.number().int().positive(),
  provenanceKey: column.nullable(),
  meta: jsonObject,
  createdAt: z.number().int().nonnegative(),
});

/** Validates a complete entry read from outside (a JSONL line, an imported row). */
export function validateEntry(value: unknown, where = 'entry'): Entry {
  return validateWith<Entry>(storedEntryShape, value, where);
}
