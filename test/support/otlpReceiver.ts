import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';
import * as protobuf from 'protobufjs';
import { fromJson } from 'protobufjs/ext/protojson';

/**
 * A loopback OTLP/HTTP trace receiver for the tests. It decodes what we send with the OpenTelemetry
 * project's own protos (test/fixtures/opentelemetry-proto), not with our serialiser's idea of them,
 * and is stricter than the specification asks a collector to be (which must ignore unknown JSON
 * keys): a test that wants to know our requests conform learns it here, not from a backend later.
 */

export type ReceivedAttributes = Record<string, string | number | boolean | string[]>;

export interface ReceivedSpan {
  /** Lowercase hex; `parentSpanId` is '' for a root. */
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  /** AnyValue unwrapped, int64 as a number. */
  attributes: ReceivedAttributes;
  status: { code: number; message: string };
  links: { traceId: string; spanId: string; attributes: ReceivedAttributes }[];
  /** The resource's `service.name` ('' when it has none). */
  serviceName: string;
}

export interface ReceivedRequest {
  contentType: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  spans: ReceivedSpan[];
}

export interface Reply {
  status: number;
  delayMs?: number;
  headers?: Record<string, string>;
}

export interface OtlpReceiver {
  /** http://127.0.0.1:<port>/v1/traces */
  url: string;
  /** Every request that decoded, in arrival order. */
  requests: ReceivedRequest[];
  /** Bodies that did not decode (answered 400, or 415 for another content type): a test asserts this stays empty. */
  rejected: { contentType: string; error: string }[];
  /** All spans of all requests that were answered 2xx. */
  spans(): ReceivedSpan[];
  /** Scripts the answers (default 200); `index` counts every POST to /v1/traces, decoded or not. */
  reply(fn: (index: number) => Reply): void;
  /** Rejects with what arrived so far when `predicate` does not hold within `timeoutMs` (default 5000). */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /** Also destroys open sockets, so a delayed answer never holds a test. */
  close(): Promise<void>;
}

const TRACES_PATH = '/v1/traces';
const MAX_BODY_BYTES = 32 * 1024 * 1024;
const PROTOS = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'opentelemetry-proto');
const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

interface Schema {
  request: protobuf.Type;
  response: protobuf.Type;
  /** google.rpc.Status, the body of an OTLP error answer: two fields, declared here rather than copying its proto. */
  status: protobuf.Type;
}

let schema: Schema | undefined;
function schemaOf(): Schema {
  if (schema !== undefined) return schema;
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.join(PROTOS, target);
  root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
  root.resolveAll();
  const status = new protobuf.Type('Status').add(new protobuf.Field('code', 1, 'int32')).add(new protobuf.Field('message', 2, 'string'));
  schema = {
    request: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest'),
    response: root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse'),
    status,
  };
  return schema;
}

/** The id fields OTLP/JSON writes in hex where ProtoJSON writes base64. */
const HEX_IDS = new Set(['traceId', 'spanId', 'parentSpanId']);
const INT32_TYPES = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
/** A value in an error message, cut short: a body may be megabytes. */
const shown = (v: unknown): string => String(JSON.stringify(v)).slice(0, 80);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * OTLP/JSON to ProtoJSON: the three ways OTLP's mapping departs from it (hex ids, integer enums,
 * lowerCamelCase keys only) checked and undone, so ProtoJSON's own parser checks everything else.
 * 32-bit integers must be numbers too: only 64-bit ones may be strings.
 */
function protoJsonOf(type: protobuf.Type, value: unknown, at: string): Record<string, unknown> {
  if (!isRecord(value)) throw new Error(`${at}: expected an object, got ${shown(value)}`);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = Object.hasOwn(type.fields, key) ? type.fields[key].resolve() : undefined;
    if (field === undefined || field.jsonName !== key)
      throw new Error(`${at}: unknown field "${key}" (OTLP/JSON keys are ${type.name}'s lowerCamelCase field names)`);
    const where = `${at}.${key}`;
    if (v === null) out[key] = v;
    else if (!field.repeated) out[key] = protoJsonValue(field, v, where);
    else if (Array.isArray(v)) out[key] = v.map((x, i) => protoJsonValue(field, x, `${where}[${i}]`));
    else throw new Error(`${where}: expected an array, got ${shown(v)}`);
  }
  return out;
}

function protoJsonValue(field: protobuf.Field, v: unknown, at: string): unknown {
  const type = field.resolvedType;
  if (type instanceof protobuf.Type) return protoJsonOf(type, v, at);
  if (type instanceof protobuf.Enum || INT32_TYPES.has(field.type)) {
    if (!Number.isInteger(v)) throw new Error(`${at}: expected an integer number, got ${shown(v)}`);
    return v;
  }
  if (field.type === 'bytes' && HEX_IDS.has(field.name)) {
    if (typeof v !== 'string' || !/^(?:[0-9a-fA-F]{2})*$/.test(v))
      throw new Error(`${at}: expected a hex id (OTLP/JSON ids are hex, not base64), got ${shown(v)}`);
    return Buffer.from(v, 'hex').toString('base64');
  }
  return v;
}

/** Fields the protos do not declare, anywhere in a decoded message (protobufjs keeps them when asked). */
function unknownFieldAt(type: protobuf.Type, message: protobuf.Message, at: string): string | null {
  const unknowns = (message as { $unknowns?: unknown[] }).$unknowns;
  if (unknowns !== undefined && unknowns.length > 0) return at;
  for (const field of type.fieldsArray) {
    const sub = field.resolvedType;
    const value = (message as unknown as Record<string, unknown>)[field.name];
    if (!(sub instanceof protobuf.Type) || value === undefined || value === null) continue;
    const values = (field.repeated ? value : [value]) as protobuf.Message[];
    for (const [i, m] of values.entries()) {
      const found = unknownFieldAt(sub, m, field.repeated ? `${at}.${field.name}[${i}]` : `${at}.${field.name}`);
      if (found !== null) return found;
    }
  }
  return null;
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0].trim().toLowerCase();
}

function decodedMessage(body: Buffer, contentType: string): protobuf.Message {
  const { request } = schemaOf();
  const media = mediaType(contentType);
  if (media === PROTOBUF_TYPE) {
    const reader = protobuf.Reader.create(body);
    reader.discardUnknown = false;
    const message = request.decode(reader);
    const unknown = unknownFieldAt(request, message, 'request');
    if (unknown !== null) throw new Error(`${unknown}: a field the protos do not declare`);
    return message;
  }
  if (media === JSON_TYPE) {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(body);
    return fromJson(request, protoJsonOf(request, JSON.parse(text), 'request'));
  }
  throw new Error(`content type "${contentType}" is neither ${JSON_TYPE} nor ${PROTOBUF_TYPE}`);
}

interface AnyValueObject {
  value?: string;
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string;
  doubleValue?: number;
  arrayValue?: { values: AnyValueObject[] };
}
interface KeyValueObject {
  key: string;
  value: AnyValueObject | null;
}
interface SpanObject {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: KeyValueObject[];
  status: { code: number; message: string } | null;
  links: { traceId: string; spanId: string; attributes: KeyValueObject[] }[];
}
interface RequestObject {
  resourceSpans: { resource: { attributes: KeyValueObject[] } | null; scopeSpans: { spans: SpanObject[] }[] }[];
}

/** A hex id of `bytes` bytes from protobufjs's base64, not all zeros (the specification's invalid id); '' allowed where a parent may be absent. */
function idOf(base64: string, bytes: number, at: string, absentAllowed = false): string {
  const hex = Buffer.from(base64, 'base64').toString('hex');
  if (hex === '' && absentAllowed) return '';
  if (hex.length !== bytes * 2) throw new Error(`${at}: ${hex.length / 2} bytes, where the id has ${bytes}`);
  if (/^0+$/.test(hex)) throw new Error(`${at}: all zeros, an invalid id`);
  return hex;
}

function unwrapped(v: AnyValueObject | null, at: string): string | number | boolean | string[] {
  switch (v?.value) {
    case 'stringValue':
    case 'boolValue':
    case 'doubleValue':
      return v[v.value] as string | boolean | number;
    case 'intValue': {
      const n = Number(v.intValue);
      if (!Number.isSafeInteger(n)) throw new Error(`${at}: the int64 ${v.intValue} is past a safe JavaScript number`);
      return n;
    }
    case 'arrayValue':
      return (v.arrayValue?.values ?? []).map((x, i) => {
        if (x.value !== 'stringValue') throw new Error(`${at}[${i}]: a ${x.value ?? 'empty'} value in an array, where this receiver unwraps strings only`);
        return x.stringValue as string;
      });
    default:
      throw new Error(`${at}: a ${v?.value ?? 'empty'} value, which this receiver does not unwrap`);
  }
}

function attributesOf(kvs: readonly KeyValueObject[], at: string): ReceivedAttributes {
  const out: ReceivedAttributes = {};
  for (const kv of kvs) {
    if (Object.hasOwn(out, kv.key)) throw new Error(`${at}: the key "${kv.key}" twice (attribute keys are unique)`);
    out[kv.key] = unwrapped(kv.value, `${at}.${kv.key}`);
  }
  return out;
}

/**
 * Decodes one ExportTraceServiceRequest body: `application/x-protobuf` with the protos,
 * `application/json` by the OTLP/JSON mapping (lowerCamelCase keys, hex trace/span ids, enums as
 * integers, int64 as strings or numbers), checked against the same schema (protobufjs's ProtoJSON
 * parser, then Type.verify); throws on anything that does not conform (unknown field, wrong type,
 * bad id length).
 */
export function decodeOtlpTraces(body: Buffer, contentType: string): ReceivedSpan[] {
  const { request } = schemaOf();
  const message = decodedMessage(body, contentType);
  const invalid = request.verify(message);
  if (invalid !== null) throw new Error(`request: ${invalid}`);
  const object = request.toObject(message, { longs: String, enums: Number, bytes: String, defaults: true, arrays: true, oneofs: true }) as RequestObject;
  return object.resourceSpans.flatMap((rs, r) => {
    const resource = attributesOf(rs.resource?.attributes ?? [], `resourceSpans[${r}].resource`);
    const serviceName = typeof resource['service.name'] === 'string' ? resource['service.name'] : '';
    return rs.scopeSpans.flatMap((ss, c) =>
      ss.spans.map((s, i): ReceivedSpan => {
        const at = `resourceSpans[${r}].scopeSpans[${c}].spans[${i}]`;
        return {
          traceId: idOf(s.traceId, 16, `${at}.traceId`),
          spanId: idOf(s.spanId, 8, `${at}.spanId`),
          parentSpanId: idOf(s.parentSpanId, 8, `${at}.parentSpanId`, true),
          name: s.name,
          kind: s.kind,
          startTimeUnixNano: s.startTimeUnixNano,
          endTimeUnixNano: s.endTimeUnixNano,
          attributes: attributesOf(s.attributes, `${at}.attributes`),
          status: { code: s.status?.code ?? 0, message: s.status?.message ?? '' },
          links: s.links.map((l, k) => ({
            traceId: idOf(l.traceId, 16, `${at}.links[${k}].traceId`),
            spanId: idOf(l.spanId, 8, `${at}.links[${k}].spanId`),
            attributes: attributesOf(l.attributes, `${at}.links[${k}].attributes`),
          })),
          serviceName,
        };
      }),
    );
  });
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** An answer in the request's encoding: an empty ExportTraceServiceResponse on success, else a google.rpc.Status. */
function answerBody(contentType: string, status: number): { type: string; body: Uint8Array } {
  const ok = status >= 200 && status < 300;
  const { response, status: rpcStatus } = schemaOf();
  const message = ok ? {} : { message: `HTTP ${status} from the test receiver` };
  if (mediaType(contentType) === PROTOBUF_TYPE) return { type: PROTOBUF_TYPE, body: (ok ? response : rpcStatus).encode(message).finish() };
  return { type: JSON_TYPE, body: Buffer.from(JSON.stringify(message)) };
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: ReceivedRequest[] = [];
  const rejected: OtlpReceiver['rejected'] = [];
  const accepted = new Set<ReceivedRequest>();
  const timers = new Set<NodeJS.Timeout>();
  let script: (index: number) => Reply = () => ({ status: 200 });
  let arrived = 0;

  const answer = (res: http.ServerResponse, contentType: string, reply: Reply, then: () => void = () => undefined): void => {
    const send = (): void => {
      if (res.destroyed) return;
      const { type, body } = answerBody(contentType, reply.status);
      res.writeHead(reply.status, { 'content-type': type, 'content-length': body.byteLength, ...reply.headers });
      res.end(body);
      then();
    };
    if (reply.delayMs === undefined) return send();
    const t = setTimeout(() => {
      timers.delete(t);
      send();
    }, reply.delayMs);
    timers.add(t);
  };

  const server = http.createServer((req, res) => {
    const contentType = req.headers['content-type'] ?? '';
    if (req.method !== 'POST' || (req.url ?? '').split('?')[0] !== TRACES_PATH) {
      req.resume();
      res.writeHead(404).end();
      return;
    }
    const index = arrived++;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = Number(req.headers['content-length'] ?? 0) > MAX_BODY_BYTES;
    req.on('data', (d: Buffer) => {
      size += d.length;
      tooLarge ||= size > MAX_BODY_BYTES;
      if (!tooLarge) chunks.push(d);
    });
    req.on('end', () => {
      const refuse = (status: number, error: string): void => {
        rejected.push({ contentType, error });
        answer(res, contentType, { status });
      };
      if (tooLarge) return refuse(413, `a body over ${MAX_BODY_BYTES} bytes`);
      const encoding = req.headers['content-encoding'];
      if (encoding !== undefined && encoding !== 'identity') return refuse(415, `content-encoding ${encoding}, which this receiver does not decode`);
      const media = mediaType(contentType);
      if (media !== JSON_TYPE && media !== PROTOBUF_TYPE) return refuse(415, `content type "${contentType}"`);
      const body = Buffer.concat(chunks);
      let spans: ReceivedSpan[];
      try {
        spans = decodeOtlpTraces(body, contentType);
      } catch (e) {
        return refuse(400, errorText(e));
      }
      const request: ReceivedRequest = { contentType, headers: req.headers, body, spans };
      requests.push(request);
      const reply = script(index);
      answer(res, contentType, reply, () => {
        if (reply.status >= 200 && reply.status < 300) accepted.add(request);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}${TRACES_PATH}`,
    requests,
    rejected,
    spans: () => requests.filter((r) => accepted.has(r)).flatMap((r) => r.spans),
    reply: (fn) => void (script = fn),
    async waitFor(predicate, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!predicate()) {
        if (Date.now() >= deadline) {
          const why = rejected.length > 0 ? `; the last rejected: ${rejected[rejected.length - 1].error}` : '';
          throw new Error(
            `the OTLP receiver waited ${timeoutMs} ms and the condition still does not hold (${requests.length} requests decoded, ${accepted.size} answered 2xx, ${rejected.length} rejected${why})`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closing;
    },
  };
}

/** One POST of a body as an exporter sends it, with plain `http.request`: the answer's status, headers and body. */
export function postTraces(
  url: string,
  body: string | Uint8Array,
  contentType: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': contentType } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (d: Buffer) => chunks.push(d));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end(body);
  });
}
