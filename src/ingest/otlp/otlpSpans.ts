import * as z from 'zod';
import { TapeFileError } from '../../store/errors';
import { jsonTextTooDeep } from '../../tape/jsonDepth';
import { countSkip } from '../format';
import { readSourceBytes } from '../sourceFiles';
import { parseTranscript } from '../transcriptLines';

/**
 * OTLP/JSON trace files (an `ExportTraceServiceRequest`: `{"resourceSpans":[...]}`), one document
 * in the file or one a line (a collector's file exporter writes a JSONL of them), as the
 * OpenTelemetry JSON mapping writes them: trace and span ids as hex (or base64), times as
 * nanoseconds (a decimal string, or a number), attribute values as `AnyValue` objects. Every span
 * is checked by zod; one that is not a span is counted, never fatal.
 */

/**
 * How many spans of one file are mapped: a GenAI session is hundreds; a file of millions (a
 * collector's whole day) is cut here, the rest counted in `span/over-limit`, so memory and time
 * stay bounded whatever the file holds.
 */
export const MAX_SPANS = 200_000;

/** An attribute value, as the OTLP JSON mapping writes `AnyValue`. */
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number | string;
  bytesValue?: string;
  arrayValue?: { values?: AnyValue[] };
  kvlistValue?: { values?: KeyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}

const anyValue: z.ZodType<AnyValue> = z.lazy(() =>
  z.looseObject({
    stringValue: z.string().optional(),
    boolValue: z.boolean().optional(),
    // int64 is a decimal string in the JSON mapping; some writers put a number.
    intValue: z.union([z.string().regex(/^-?\d{1,20}$/), z.number().int()]).optional(),
    // A double may be "NaN", "Infinity" or "-Infinity".
    doubleValue: z.union([z.number(), z.string()]).optional(),
    bytesValue: z.string().optional(),
    arrayValue: z.looseObject({ values: z.array(anyValue).optional() }).optional(),
    kvlistValue: z.looseObject({ values: z.array(keyValue).optional() }).optional(),
  }),
);
const keyValue: z.ZodType<KeyValue> = z.lazy(() => z.looseObject({ key: z.string(), value: anyValue.optional() }));
const attributes = z.array(keyValue).optional();

/**
 * A trace or span id as lower-case hex. The OTLP JSON mapping writes hex; a protobuf library's own
 * JSON writes bytes as base64, which some exporters pass on: both are read. All zeros is no id.
 */
function hexOfId(id: string, bytes: number): string | null {
  let hex: string | null = null;
  if (id.length === bytes * 2 && /^[0-9a-fA-F]+$/.test(id)) hex = id.toLowerCase();
  else if (id.length === Math.ceil(bytes / 3) * 4 && /^[A-Za-z0-9+/]+={0,2}$/.test(id)) {
    const decoded = Buffer.from(id, 'base64');
    if (decoded.length === bytes) hex = decoded.toString('hex');
  }
  return hex === null || /^0+$/.test(hex) ? null : hex;
}
const idOf = (bytes: number) =>
  z.string().transform((id, ctx) => {
    const hex = hexOfId(id, bytes);
    if (hex === null) ctx.addIssue({ code: 'custom', message: `not a ${bytes}-byte id in hex or base64` });
    return hex ?? '';
  });
/**
 * Whether a value has a span's ids, checked before zod is asked: zod reports a failure slowly (an
 * error object each, tens of µs), and a hostile file of a million things that are no spans must
 * not take minutes.
 */
function hasSpanIds(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const { traceId, spanId } = raw as { traceId?: unknown; spanId?: unknown };
  return typeof traceId === 'string' && typeof spanId === 'string' && hexOfId(traceId, 16) !== null && hexOfId(spanId, 8) !== null;
}
const unixNano = z.union([z.string().regex(/^\d{1,20}$/), z.number().int().nonnegative()]);

const spanRecord = z.looseObject({
  traceId: idOf(16),
  spanId: idOf(8),
  parentSpanId: z.union([z.literal(''), idOf(8)]).optional(),
  name: z.string().max(1024),
  startTimeUnixNano: unixNano,
  endTimeUnixNano: unixNano.optional(),
  attributes,
  // STATUS_CODE_ERROR is 2; some writers put it as a string, or the enum's name.
  status: z.looseObject({ code: z.union([z.number(), z.string()]).optional(), message: z.string().optional() }).optional(),
});

const OTHER_SIGNALS = ['resourceLogs', 'resourceMetrics'];
const traceRequest = z.looseObject({ resourceSpans: z.array(z.unknown()) });
const resourceSpans = z.looseObject({
  resource: z.looseObject({ attributes }).optional(),
  scopeSpans: z.array(z.looseObject({ spans: z.array(z.unknown()).optional() })).optional(),
});

/** An attribute's value as JSON. */
export type AttributeValue = string | number | boolean | null | AttributeValue[] | { [key: string]: AttributeValue };

/** One span, checked, its ids lower-case and its attributes decoded. */
export interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** Nanoseconds since the epoch. */
  start: bigint;
  /** Nanoseconds since the epoch; the start when the span says no end. */
  end: bigint;
  attributes: ReadonlyMap<string, AttributeValue>;
  /** Its resource's attributes (`service.name`, …). */
  resource: ReadonlyMap<string, AttributeValue>;
  /** The span's status is an error: its message, else ''. */
  error?: string;
  /** Where it is in the file: equal start times keep this order. */
  order: number;
}

function decode(v: AnyValue | undefined): AttributeValue {
  if (v === undefined) return null;
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) {
    const n = Number(v.intValue);
    return Number.isSafeInteger(n) ? n : String(v.intValue);
  }
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.bytesValue !== undefined) return v.bytesValue;
  if (v.arrayValue !== undefined) return (v.arrayValue.values ?? []).map(decode);
  if (v.kvlistValue !== undefined) return Object.fromEntries((v.kvlistValue.values ?? []).map((kv) => [kv.key, decode(kv.value)]));
  return null;
}

const attributeMap = (list: readonly KeyValue[] | undefined): Map<string, AttributeValue> => new Map((list ?? []).map((kv) => [kv.key, decode(kv.value)]));

const nanos = (t: string | number): bigint => (typeof t === 'number' ? BigInt(Math.trunc(t)) : BigInt(t));

export interface SpanFile {
  spans: Span[];
  /** A JSONL file's last line is still being written: left for the next run. */
  tornLastLine: boolean;
}

/**
 * The documents of an OTLP/JSON file: the whole file when it is one JSON value, else each line of
 * it (JSONL); lines that are not JSON are counted.
 */
function documentsOf(file: string, skipped: Record<string, number>): { documents: unknown[]; invalid: number; tornLastLine: boolean } {
  const bytes = readSourceBytes(file);
  const text = bytes.toString('utf8');
  const deep = jsonTextTooDeep(text);
  // One line is one document, too deep as a whole; lines of a JSONL are each checked as they are parsed.
  if (deep !== null && text.indexOf('\n') >= text.trimEnd().length) throw new TapeFileError(file, `is not read: it ${deep}`);
  if (deep === null) {
    try {
      return { documents: [JSON.parse(text) as unknown], invalid: 0, tornLastLine: false };
    } catch {
      // Not one JSON value: JSONL, one document a line.
    }
  }
  const { lines, invalidLines, tornLastLine } = parseTranscript(bytes);
  if (invalidLines.length > 0) countSkip(skipped, 'invalid-json', invalidLines.length);
  return { documents: lines.map((l) => l.record), invalid: invalidLines.length, tornLastLine };
}

/**
 * Every span of an OTLP/JSON or OTLP/JSONL file, at most MAX_SPANS, a span seen twice (the same
 * batch exported again) once. A file with no trace request in it at all is a TapeFileError naming it.
 */
export function readSpans(file: string, skipped: Record<string, number>): SpanFile {
  const { documents, invalid: invalidLines, tornLastLine } = documentsOf(file, skipped);
  const spans: Span[] = [];
  const seen = new Set<string>();
  let requests = 0;
  let order = 0;
  let looked = 0;
  let overLimit = 0;
  let invalid = 0;
  for (const document of documents) {
    const request = traceRequest.safeParse(document);
    if (!request.success) {
      // A collector's file exporter may write its logs and metrics to the same file.
      const other = OTHER_SIGNALS.find((k) => typeof document === 'object' && document !== null && Object.hasOwn(document, k));
      countSkip(skipped, other === undefined ? 'invalid/document' : `document/${other}`);
      continue;
    }
    requests++;
    for (const rawResource of request.data.resourceSpans) {
      const rs = resourceSpans.safeParse(rawResource);
      if (!rs.success) {
        countSkip(skipped, 'invalid/resourceSpans');
        continue;
      }
      const resource = attributeMap(rs.data.resource?.attributes);
      for (const scope of rs.data.scopeSpans ?? [])
        for (const raw of scope.spans ?? []) {
          if (looked++ >= MAX_SPANS) {
            overLimit++;
            continue;
          }
          const s = hasSpanIds(raw) ? spanRecord.safeParse(raw) : undefined;
          if (s?.success !== true) {
            invalid++;
            continue;
          }
          const { traceId, spanId } = s.data;
          if (seen.has(`${traceId}/${spanId}`)) {
            countSkip(skipped, 'span/duplicate');
            continue;
          }
          seen.add(`${traceId}/${spanId}`);
          const start = nanos(s.data.startTimeUnixNano);
          const end = s.data.endTimeUnixNano === undefined ? start : nanos(s.data.endTimeUnixNano);
          const code = s.data.status?.code;
          spans.push({
            traceId,
            spanId,
            parentSpanId: s.data.parentSpanId === undefined || s.data.parentSpanId === '' ? undefined : s.data.parentSpanId,
            name: s.data.name,
            start,
            end: end < start ? start : end,
            attributes: attributeMap(s.data.attributes),
            resource,
            ...(code === 2 || code === '2' || code === 'STATUS_CODE_ERROR' ? { error: s.data.status?.message ?? '' } : {}),
            order: order++,
          });
        }
    }
  }
  if (invalid > 0) countSkip(skipped, 'invalid/span', invalid);
  if (overLimit > 0) countSkip(skipped, 'span/over-limit', overLimit);
  if (requests === 0 && documents.length + invalidLines > 0)
    throw new TapeFileError(file, 'is not OTLP/JSON: it holds no {"resourceSpans": [...]} trace request, whole or one a line');
  return { spans, tornLastLine };
}
