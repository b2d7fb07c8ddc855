import * as assert from 'assert';
import { otlpJson, otlpProtobuf, readableSpans } from '../../../src/otel/otlpRequest';
import type { GenAiSpan } from '../../../src/otel/genAiSpans';
import { spanIdOf, traceIdOf } from '../../../src/otel/spanIds';
import { spansOf } from './otlpSpans';

const traceId = traceIdOf('s');
const turn: GenAiSpan = {
  traceId,
  spanId: spanIdOf('s', 'turn', 't1'),
  parentSpanId: null,
  name: 'invoke_agent agent-tape',
  kind: 'internal',
  startMs: 1_765_000_000_123,
  endMs: 1_765_000_000_456,
  attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.usage.input_tokens': 12 },
  error: null,
  links: [],
};
const chat: GenAiSpan = { ...turn, spanId: spanIdOf('s', 'attempt', 3), parentSpanId: turn.spanId, name: 'chat m', kind: 'client', error: 'rate_limit' };

describe('OTLP requests of GenAI spans (src/otel/otlpRequest.ts)', () => {
  it('JSON: hex ids, nanosecond strings, kinds and status as OTLP numbers them', () => {
    const [t, c] = spansOf(otlpJson(readableSpans([turn, chat], 'agent-tape')));
    assert.deepStrictEqual(
      [t.traceId, t.spanId, t.parentSpanId, t.startTimeUnixNano, t.endTimeUnixNano, t.kind],
      [traceId, turn.spanId, undefined, '1765000000123000000', '1765000000456000000', 1],
    );
    assert.deepStrictEqual([c.parentSpanId, c.kind, c.status], [turn.spanId, 3, { code: 2, message: 'rate_limit' }]);
    assert.strictEqual(t.service, 'agent-tape');
  });

  it('protobuf: the same spans encode, each span with its trace id as field 1 (16 bytes) and its name', () => {
    const bytes = Buffer.from(otlpProtobuf(readableSpans([turn, chat], 'agent-tape')));
    const field1 = Buffer.concat([Buffer.from([0x0a, 16]), Buffer.from(traceId, 'hex')]);
    let count = 0;
    for (let at = bytes.indexOf(field1); at >= 0; at = bytes.indexOf(field1, at + 1)) count++;
    assert.strictEqual(count, 2);
    assert.ok(bytes.includes(Buffer.from(chat.spanId, 'hex')) && bytes.includes(Buffer.from('chat m')));
  });

  it('ids are derived: the same parts give the same id, other parts another', () => {
    assert.strictEqual(spanIdOf('s', 'turn', 't1'), turn.spanId);
    assert.notStrictEqual(spanIdOf('s', 'turn', 't2'), turn.spanId);
    assert.notStrictEqual(spanIdOf('s', 'tool', 't1'), turn.spanId);
    assert.match(traceIdOf('s'), /^[0-9a-f]{32}$/);
  });
});
