import * as assert from 'assert';
import * as http from 'http';
import type { GenAiSpan } from '../../../src/otel/genAiSpans';
import { otlpJson, otlpProtobuf, readableSpans } from '../../../src/otel/otlpRequest';
import { spanIdOf, traceIdOf } from '../../../src/otel/spanIds';
import { decodeOtlpTraces, postTraces, startOtlpReceiver, type OtlpReceiver } from '../../support/otlpReceiver';

const JSON_TYPE = 'application/json';
const PROTOBUF_TYPE = 'application/x-protobuf';

const turn: GenAiSpan = {
  traceId: traceIdOf('s'),
  spanId: spanIdOf('s', 'turn', 't1'),
  parentSpanId: null,
  name: 'invoke_agent agent-tape',
  kind: 'internal',
  startMs: 1_765_000_000_123,
  endMs: 1_765_000_000_456,
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 12, 'gen_ai.response.finish_reasons': ['stop'], ok: true, ratio: 0.5 },
  error: null,
  links: [{ traceId: traceIdOf('p'), spanId: spanIdOf('p', 'turn', 't0'), attributes: { 'agent_tape.link': 'fork' } }],
};
const chat: GenAiSpan = {
  ...turn,
  spanId: spanIdOf('s', 'attempt', 3),
  parentSpanId: turn.spanId,
  name: 'chat m',
  kind: 'client',
  error: 'rate_limit',
  links: [],
};
const spans = readableSpans([turn, chat], 'agent-tape');

interface Json {
  resourceSpans: { resource: Record<string, unknown>; scopeSpans: { spans: Record<string, unknown>[] }[] }[];
}
/** Our JSON request, edited by `change` (on its first span unless it says otherwise). */
function edited(change: (span: Record<string, unknown>, request: Json) => void): Buffer {
  const request = JSON.parse(otlpJson(spans)) as Json;
  change(request.resourceSpans[0].scopeSpans[0].spans[0], request);
  return Buffer.from(JSON.stringify(request));
}
const attributesOf = (span: Record<string, unknown>) => span.attributes as { key: string; value: Record<string, unknown> }[];

describe('the tests’ OTLP receiver (test/support/otlpReceiver.ts)', () => {
  it('decodes our JSON and protobuf to the same spans, ids in hex, AnyValues unwrapped', () => {
    const fromJson = decodeOtlpTraces(Buffer.from(otlpJson(spans)), JSON_TYPE);
    assert.deepStrictEqual(decodeOtlpTraces(Buffer.from(otlpProtobuf(spans)), PROTOBUF_TYPE), fromJson);
    assert.deepStrictEqual(fromJson[0], {
      traceId: turn.traceId,
      spanId: turn.spanId,
      parentSpanId: '',
      name: turn.name,
      kind: 1,
      startTimeUnixNano: '1765000000123000000',
      endTimeUnixNano: '1765000000456000000',
      attributes: turn.attributes,
      status: { code: 0, message: '' },
      links: turn.links,
      serviceName: 'agent-tape',
    });
    assert.deepStrictEqual([fromJson[1].parentSpanId, fromJson[1].kind, fromJson[1].status], [turn.spanId, 3, { code: 2, message: 'rate_limit' }]);
  });

  it('JSON: int64 as a string or a number, a media type with parameters', () => {
    const asString = edited((s) => {
      // A number this size is exact in a double; a real time in nanoseconds is not, which is why exporters write strings.
      s.startTimeUnixNano = 1_000_000;
      attributesOf(s)[1].value = { intValue: '12' };
    });
    const decoded = decodeOtlpTraces(asString, 'application/json; charset=utf-8');
    assert.deepStrictEqual([decoded[0].startTimeUnixNano, decoded[0].attributes['gen_ai.usage.input_tokens']], ['1000000', 12]);
  });

  const refusedJson: [string, (span: Record<string, unknown>, request: Json) => void, RegExp][] = [
    ['a base64 trace id', (s) => (s.traceId = Buffer.from(String(s.traceId), 'hex').toString('base64')), /traceId: expected a hex id/],
    ['a base64 link span id', (s) => ((s.links as Record<string, unknown>[])[0].spanId = 'AQIDBAUGBwg='), /links\[0\]\.spanId: expected a hex id/],
    ['a span id of 4 bytes', (s) => (s.spanId = '01020304'), /spanId: 4 bytes, where the id has 8/],
    ['an all-zero trace id', (s) => (s.traceId = '0'.repeat(32)), /traceId: all zeros/],
    ['a string where an enum belongs', (s) => (s.kind = '1'), /kind: expected an integer number/],
    ['an enum by its name', (s) => (s.kind = 'SPAN_KIND_INTERNAL'), /kind: expected an integer number/],
    [
      'a string where a uint32 belongs',
      (_s, r) => (r.resourceSpans[0].resource.droppedAttributesCount = '0'),
      /droppedAttributesCount: expected an integer number/,
    ],
    ['a number where a string belongs', (s) => (s.name = 7), /name/],
    ['a time that is not an integer', (s) => (s.startTimeUnixNano = 'soon'), /startTimeUnixNano/],
    ['an unknown key', (s) => (s.colour = 'blue'), /unknown field "colour"/],
    ['a snake_case key', (s) => ((s.trace_id = s.traceId), delete s.traceId), /unknown field "trace_id"/],
    ['two values of one AnyValue', (s) => (attributesOf(s)[0].value = { stringValue: 'a', intValue: 1 }), /oneof/],
    ['an attribute key twice', (s) => attributesOf(s).push(attributesOf(s)[0]), /the key "gen_ai.operation.name" twice/],
    ['an array where an object belongs', (s) => (s.status = []), /expected an object/],
  ];
  for (const [what, change, error] of refusedJson) it(`JSON: refuses ${what}`, () => assert.throws(() => decodeOtlpTraces(edited(change), JSON_TYPE), error));

  it('protobuf: refuses a field the protos do not declare, a cut body, and a short id', () => {
    const bytes = Buffer.from(otlpProtobuf(spans));
    // Field 99 (varint 1) after the request's own fields.
    assert.throws(() => decodeOtlpTraces(Buffer.concat([bytes, Buffer.from([0x98, 0x06, 0x01])]), PROTOBUF_TYPE), /request: a field the protos do not declare/);
    assert.throws(() => decodeOtlpTraces(bytes.subarray(0, bytes.length - 5), PROTOBUF_TYPE));
    const shortId = Buffer.from(otlpProtobuf(readableSpans([{ ...turn, spanId: '0102030405' }], 'a')));
    assert.throws(() => decodeOtlpTraces(shortId, PROTOBUF_TYPE), /spanId: 5 bytes, where the id has 8/);
    assert.throws(() => decodeOtlpTraces(bytes, 'text/plain'), /neither application\/json nor application\/x-protobuf/);
  });

  describe('over HTTP', () => {
    let receiver: OtlpReceiver;
    beforeEach(async () => (receiver = await startOtlpReceiver()));
    afterEach(() => receiver.close());

    it('answers 200 {} to JSON and an empty response to protobuf, listens on 127.0.0.1 only', async () => {
      assert.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+\/v1\/traces$/);
      const json = await postTraces(receiver.url, otlpJson(spans), JSON_TYPE);
      const proto = await postTraces(receiver.url, otlpProtobuf(spans), PROTOBUF_TYPE);
      assert.deepStrictEqual([json.status, json.headers['content-type'], json.body.toString()], [200, JSON_TYPE, '{}']);
      assert.deepStrictEqual([proto.status, proto.headers['content-type'], proto.body.length], [200, PROTOBUF_TYPE, 0]);
      assert.deepStrictEqual(
        receiver.requests.map((r) => [r.contentType, r.spans.length]),
        [
          [JSON_TYPE, 2],
          [PROTOBUF_TYPE, 2],
        ],
      );
      assert.strictEqual(receiver.spans().length, 4);
      assert.deepStrictEqual(receiver.rejected, []);
    });

    it('404 for another path or method; 400 for a body that does not decode, which is listed as rejected', async () => {
      assert.strictEqual((await postTraces(receiver.url.replace('/v1/traces', '/v1/logs'), otlpJson(spans), JSON_TYPE)).status, 404);
      const get = await new Promise<number>((resolve, reject) => http.get(receiver.url, (r) => (r.resume(), resolve(r.statusCode ?? 0))).on('error', reject));
      assert.strictEqual(get, 404);
      const bad = await postTraces(
        receiver.url,
        edited((s) => (s.kind = 'SPAN_KIND_INTERNAL')),
        JSON_TYPE,
      );
      assert.strictEqual(bad.status, 400);
      assert.strictEqual((await postTraces(receiver.url, 'x', 'text/plain')).status, 415);
      assert.deepStrictEqual(
        receiver.rejected.map((r) => r.contentType),
        [JSON_TYPE, 'text/plain'],
      );
      assert.match(receiver.rejected[0].error, /kind: expected an integer number/);
      assert.deepStrictEqual(receiver.requests, []);
    });

    it('scripted answers: spans() holds only what was answered 2xx; the index counts every request', async () => {
      const seen: number[] = [];
      receiver.reply((i) => (seen.push(i), i === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
      const first = await postTraces(receiver.url, otlpProtobuf(spans), PROTOBUF_TYPE);
      const second = await postTraces(receiver.url, otlpJson(readableSpans([turn], 'agent-tape')), JSON_TYPE);
      assert.deepStrictEqual([first.status, first.headers['retry-after'], second.status], [503, '1', 200]);
      assert.deepStrictEqual(seen, [0, 1]);
      assert.strictEqual(receiver.requests.length, 2);
      assert.deepStrictEqual(
        receiver.spans().map((s) => s.spanId),
        [turn.spanId],
      );
    });

    it('refuses a body over 32 MiB with 413', async () => {
      const answer = await postTraces(receiver.url, Buffer.alloc(33 * 1024 * 1024, 0x20), JSON_TYPE);
      assert.strictEqual(answer.status, 413);
      assert.match(receiver.rejected[0].error, /over 33554432 bytes/);
    });

    it('a delayed answer does not hold close(); waitFor says what it saw at its timeout', async () => {
      receiver.reply(() => ({ status: 200, delayMs: 60_000 }));
      const pending = postTraces(receiver.url, otlpJson(spans), JSON_TYPE).then(
        () => 'answered',
        () => 'cut',
      );
      await receiver.waitFor(() => receiver.requests.length === 1);
      await assert.rejects(
        receiver.waitFor(() => receiver.spans().length > 0, 50),
        /waited 50 ms .*1 requests decoded, 0 answered 2xx, 0 rejected/,
      );
      const started = Date.now();
      await receiver.close();
      assert.strictEqual(await pending, 'cut');
      assert.ok(Date.now() - started < 5_000);
      assert.deepStrictEqual(receiver.spans(), []);
    });
  });
});
