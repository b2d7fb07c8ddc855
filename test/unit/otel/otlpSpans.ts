import type { TapeStore } from '../../../src/store/tapeStore';
import { otlpJsonChunks, type OtlpExportOptions } from '../../../src/otel/otlpExport';

/** A span of an OTLP/JSON request, its attributes as a plain object. */
export interface ParsedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  status: { code: number; message?: string };
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, unknown>;
  service: string;
}

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values: AnyValue[] } };
const valueOf = (v: AnyValue): unknown =>
  v.arrayValue !== undefined
    ? v.arrayValue.values.map(valueOf)
    : (v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue)));
const attributesOf = (kvs: { key: string; value: AnyValue }[] = []): Record<string, unknown> =>
  Object.fromEntries(kvs.map((kv) => [kv.key, valueOf(kv.value)]));

interface Request {
  resourceSpans: {
    resource: { attributes: { key: string; value: AnyValue }[] };
    scopeSpans: { spans: (Omit<ParsedSpan, 'attributes' | 'service'> & { attributes: { key: string; value: AnyValue }[] })[] }[];
  }[];
}

/** Every span of an OTLP/JSON request's text. */
export function spansOf(json: string): ParsedSpan[] {
  const request = JSON.parse(json) as Request;
  return request.resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({ ...s, attributes: attributesOf(s.attributes), service: String(attributesOf(rs.resource.attributes)['service.name']) })),
    ),
  );
}

/** The export of a tape as text, as the CLI writes it. */
export const exportText = (store: TapeStore, options: Partial<OtlpExportOptions> = {}): string =>
  Buffer.concat([...otlpJsonChunks(store, { tape: 't.tape.sqlite', ...options })]).toString('utf8');

export const op = (s: ParsedSpan): unknown => s.attributes['gen_ai.operation.name'];
