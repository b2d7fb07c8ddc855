import * as assert from 'assert';
import { headerNameProblem, headerSecretKey, parseOtlpSettings, type RawOtlpSettings } from '../../../src/extension/otlp/otlpSettings';

const raw = (over: Partial<RawOtlpSettings>): RawOtlpSettings => ({
  endpoint: undefined,
  protocol: undefined,
  content: undefined,
  headers: undefined,
  ...over,
});

describe('otlpSettings', () => {
  it('is off while no endpoint is set, whatever the other settings hold', () => {
    for (const endpoint of [undefined, null, '', '   '])
      assert.deepStrictEqual(parseOtlpSettings(raw({ endpoint, protocol: 'grpc', headers: 'x' })), { state: 'off' });
  });

  it('a base endpoint gets /v1/traces; protobuf, no content and no headers by default', () => {
    assert.deepStrictEqual(parseOtlpSettings(raw({ endpoint: 'http://127.0.0.1:4318' })), {
      state: 'on',
      settings: { url: 'http://127.0.0.1:4318/v1/traces', protocol: 'http/protobuf', content: false, headerNames: [] },
    });
    assert.deepStrictEqual(
      parseOtlpSettings(raw({ endpoint: ' https://otel.example.com/otlp/ ', protocol: 'http/json', content: true, headers: ['Authorization', 'x-team'] })),
      {
        state: 'on',
        settings: { url: 'https://otel.example.com/otlp/v1/traces', protocol: 'http/json', content: true, headerNames: ['Authorization', 'x-team'] },
      },
    );
  });

  it('a bad value is one problem naming its setting, and export stays off', () => {
    const problem = (over: Partial<RawOtlpSettings>): string => {
      const r = parseOtlpSettings(raw({ endpoint: 'http://127.0.0.1:4318', ...over }));
      assert.strictEqual(r.state, 'invalid', JSON.stringify(r));
      return (r as { problem: string }).problem;
    };
    assert.match(problem({ endpoint: 'localhost:4318' }), /^agentTape\.otlp\.endpoint: .*http:\/\/ or https:\/\//);
    assert.match(problem({ endpoint: 'not a url' }), /^agentTape\.otlp\.endpoint: .*not a URL/);
    assert.match(problem({ endpoint: 42 }), /^agentTape\.otlp\.endpoint: /);
    assert.match(problem({ protocol: 'grpc' }), /^agentTape\.otlp\.protocol: /);
    assert.match(problem({ content: 'yes' }), /^agentTape\.otlp\.content: /);
    assert.match(problem({ headers: 'Authorization' }), /^agentTape\.otlp\.headers: /);
    assert.match(problem({ headers: ['Bad Name'] }), /^agentTape\.otlp\.headers\.0: .*not an HTTP header name/);
    assert.match(problem({ headers: ['Content-Type'] }), /^agentTape\.otlp\.headers\.0: Content-Type is set by the exporter itself/);
    assert.match(problem({ headers: ['X-Key', 'x-key'] }), /^agentTape\.otlp\.headers: a header is named twice/);
  });

  it('refuses a login in the endpoint, and never repeats it', () => {
    const r = parseOtlpSettings(raw({ endpoint: 'https://me:hunter2secret@otel.example.com' }));
    assert.strictEqual(r.state, 'invalid');
    const problem = (r as { problem: string }).problem;
    assert.match(problem, /holds a login; set it as a header/);
    assert.ok(!problem.includes('hunter2secret'), problem);
  });

  it('header names are HTTP tokens, kept under one secret per name whatever its case', () => {
    for (const ok of ['Authorization', 'x-honeycomb-team', 'DD-API-KEY', "a!#$%&'*+.^_`|~9"]) assert.strictEqual(headerNameProblem(ok), undefined, ok);
    for (const bad of ['', 'a b', 'x:y', 'naïve', 'a\nb', 'Host', 'content-length']) assert.ok(headerNameProblem(bad) !== undefined, bad);
    assert.strictEqual(headerSecretKey('X-Honeycomb-Team'), headerSecretKey('x-honeycomb-team'));
  });
});
