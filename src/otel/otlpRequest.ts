import { JsonTraceSerializer, ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { GenAiSpan } from './genAiSpans';

/**
 * Spans in OTLP, by the OpenTelemetry project's own serialisers: `JsonTraceSerializer` writes the
 * OTLP/JSON a file export holds (hex ids, nanosecond strings), `ProtobufTraceSerializer` the same
 * spans as OTLP/protobuf for a collector. They take the SDK's `ReadableSpan`s; ours are built from
 * the tape, never recorded by a tracer, so they are that shape and no more.
 */

type ReadableSpan = Parameters<typeof JsonTraceSerializer.serializeRequest>[0][number];
type Resource = ReadableSpan['resource'];

// The SDK's enums (@opentelemetry/api), by value: SpanKind INTERNAL 0, CLIENT 2; SpanStatusCode UNSET 0, ERROR 2.
const KIND = { internal: 0, client: 2 } as const;
const STATUS_ERROR = 2;
const SAMPLED = 1;
const SCOPE = { name: 'agent-tape' };

const hrTime = (ms: number): [number, number] => [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];

/** One resource per agent, as a backend names a service: a team's view groups Claude Code's work apart from Codex's. */
const resources = new Map<string, Resource>();
function resourceOf(agent: string): Resource {
  let r = resources.get(agent);
  if (r === undefined) resources.set(agent, (r = resourceFromAttributes({ 'service.name': agent })));
  return r;
}

export function readableSpans(spans: readonly GenAiSpan[], agent: string): ReadableSpan[] {
  const resource = resourceOf(agent);
  return spans.map((s) => {
    const context = { traceId: s.traceId, spanId: s.spanId, traceFlags: SAMPLED };
    const endMs = Math.max(s.startMs, s.endMs);
    return {
      name: s.name,
      kind: KIND[s.kind] as ReadableSpan['kind'],
      spanContext: () => context,
      parentSpanContext: s.parentSpanId === null ? undefined : { traceId: s.traceId, spanId: s.parentSpanId, traceFlags: SAMPLED },
      startTime: hrTime(s.startMs),
      endTime: hrTime(endMs),
      duration: hrTime(endMs - s.startMs),
      status: s.error === null ? { code: 0 as ReadableSpan['status']['code'] } : { code: STATUS_ERROR as ReadableSpan['status']['code'], message: s.error },
      attributes: s.attributes,
      links: s.links.map((l) => ({ context: { traceId: l.traceId, spanId: l.spanId, traceFlags: SAMPLED }, attributes: l.attributes })),
      events: [],
      ended: true,
      resource,
      instrumentationScope: SCOPE,
      droppedAttributesCount: 0,
      droppedEventsCount: 0,
      droppedLinksCount: 0,
    };
  });
}

function serialized(bytes: Uint8Array | undefined, format: string): Uint8Array {
  if (bytes === undefined) throw new Error(`the OTLP ${format} serialiser produced nothing`);
  return bytes;
}

/** An `ExportTraceServiceRequest` as OTLP/JSON text: `{"resourceSpans":[...]}`. */
export const otlpJson = (spans: readonly ReadableSpan[]): string =>
  Buffer.from(serialized(JsonTraceSerializer.serializeRequest([...spans]), 'JSON')).toString('utf8');

/** An `ExportTraceServiceRequest` as OTLP/protobuf bytes. */
export const otlpProtobuf = (spans: readonly ReadableSpan[]): Uint8Array => serialized(ProtobufTraceSerializer.serializeRequest([...spans]), 'protobuf');
