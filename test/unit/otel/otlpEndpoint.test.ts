import * as assert from 'assert';
import { otlpEndpointFromEnv, parseOtlpHeaders, shownUrl, tracesUrlOf } from '../../../src/otel/otlpEndpoint';

describe('the OTLP endpoint from OTEL_EXPORTER_OTLP_* (as the OpenTelemetry SDKs read them)', () => {
  it('is off without an endpoint, with the SDK disabled, or with another traces exporter', () => {
    assert.strictEqual(otlpEndpointFromEnv({}), null);
    assert.strictEqual(otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }), null);
    assert.strictEqual(otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'TRUE' }), null);
    assert.strictEqual(otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'none' }), null);
    assert.notStrictEqual(otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_TRACES_EXPORTER: 'console,otlp' }), null);
  });

  it('appends v1/traces to a base endpoint, and takes a traces endpoint as it is (it wins)', () => {
    assert.strictEqual(tracesUrlOf('http://collector:4318'), 'http://collector:4318/v1/traces');
    assert.strictEqual(tracesUrlOf('https://cloud.langfuse.com/api/public/otel/'), 'https://cloud.langfuse.com/api/public/otel/v1/traces');
    const both = otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://a:4318', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://b:9999/custom' });
    assert.strictEqual(both?.endpoint.url, 'http://b:9999/custom');
  });

  it('reads protocol, timeout, headers (URL-decoded) and content, the TRACES_ variables winning, with the SDK defaults', () => {
    const d = otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' });
    assert.deepStrictEqual(d, { endpoint: { url: 'http://c:4318/v1/traces', protocol: 'http/protobuf', headers: {}, timeoutMs: 10_000 }, content: false });
    const c = otlpEndpointFromEnv({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-ignored=1',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'Authorization=Basic%20cGs6c2s%3D, x-team = blue ',
      OTEL_EXPORTER_OTLP_TIMEOUT: '2500',
      OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
    });
    assert.deepStrictEqual(c, {
      endpoint: { url: 'http://c:4318/v1/traces', protocol: 'http/json', headers: { Authorization: 'Basic cGs6c2s=', 'x-team': 'blue' }, timeoutMs: 2500 },
      content: true,
    });
  });

  it('names the variable of a bad value, and never quotes a header value', () => {
    const base = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    assert.throws(
      () => otlpEndpointFromEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }),
      /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: use http\/protobuf/,
    );
    assert.throws(() => otlpEndpointFromEnv({ ...base, OTEL_EXPORTER_OTLP_PROTOCOL: 'http' }), /must be http\/protobuf or http\/json/);
    assert.throws(() => otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://c' }), /http:\/\/ or https:\/\//);
    assert.throws(() => otlpEndpointFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'not a url' }), /is not a URL/);
    assert.throws(() => otlpEndpointFromEnv({ ...base, OTEL_EXPORTER_OTLP_TIMEOUT: '-1' }), /OTEL_EXPORTER_OTLP_TIMEOUT must be milliseconds/);
    assert.throws(
      () => parseOtlpHeaders('authorization=%E0%A4%A-secret-value', 'OTEL_EXPORTER_OTLP_HEADERS'),
      (e: Error) => /value of authorization is not URL-encoded/.test(e.message) && !e.message.includes('secret-value'),
    );
    assert.throws(() => parseOtlpHeaders('bad name=x', 'H'), /HTTP header name/);
    assert.throws(() => parseOtlpHeaders('novalue', 'H'), /name=value/);
    assert.throws(() => parseOtlpHeaders('a=x%0D%0Ab', 'H'), /line break/);
  });

  it('shows an endpoint without a login or a query that may carry a key', () => {
    assert.strictEqual(shownUrl('https://user:pw@collector.example:4318/v1/traces?api_key=abc'), 'https://collector.example:4318/v1/traces');
  });
});
