import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { sessionSpans } from '../../../src/otel/otlpExport';
import { TapeStore } from '../../../src/store/tapeStore';
import { startOtlpReceiver, type OtlpReceiver } from '../../support/otlpReceiver';
import { recordTurns } from '../rerun/recordedTurns';
import { runCli } from '../../support/cliProcess';
import { buildCli, cli } from './build';

const HEADER = 'Basic cGstbGYtY2FuYXJ5OnNrLWxmLWNhbmFyeQ==';

describe('agent-tape otlp --endpoint: a tape sent to a collector', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  let receiver: OtlpReceiver;
  const saved = { ...process.env };

  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-otlp-send-'));
    const steps = [[{ text: 'Reading.' }, { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } }], [{ text: 'Done.' }]];
    await recordTurns(dir, 'mine', [
      { text: `Read notes.md; the collector's login is ${HEADER}`, steps },
      { text: 'Again', steps },
    ]);
    tape = path.join(dir, 'rec.tape.sqlite');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  beforeEach(async () => (receiver = await startOtlpReceiver()));
  afterEach(async () => {
    process.env = { ...saved };
    await receiver.close();
  });
  const base = (): string => receiver.url.replace(/\/v1\/traces$/, '');

  it('sends every span of the file export, with the OTEL_EXPORTER_OTLP_* protocol and headers; content masks the header value', async () => {
    process.env.OTEL_EXPORTER_OTLP_HEADERS = `Authorization=${encodeURIComponent(HEADER)}`;
    process.env.OTEL_EXPORTER_OTLP_PROTOCOL = 'http/json';
    const r = await cli('otlp', tape, '--endpoint', base(), '--content');
    assert.strictEqual(r.code, 0, r.err);
    assert.match(r.err, /^8 spans sent to http:\/\/127\.0\.0\.1:\d+\/v1\/traces in 1 request\n$/);
    const store = await TapeStore.open(tape, { readOnly: true });
    const expected = [...sessionSpans(store, { tape })].flatMap((s) => s.spans);
    await store.close();
    assert.deepStrictEqual(
      receiver
        .spans()
        .map((s) => s.spanId)
        .sort(),
      expected.map((s) => s.spanId).sort(),
    );
    assert.ok(receiver.requests.every((q) => q.headers.authorization === HEADER && q.contentType === 'application/json'));
    assert.ok(!receiver.requests.some((q) => q.body.includes(HEADER)), 'the header value is not sent as content');
    assert.match(JSON.stringify(receiver.spans().map((s) => s.attributes['gen_ai.input.messages'])), /the collector's login is \[redacted\]/);
  });

  it('the bundled CLI stays for a retry the collector asks for (Retry-After), then exits 0 with everything sent', async () => {
    receiver.reply((i) => (i === 0 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 }));
    const r = await runCli(['otlp', tape, '--endpoint', base()]);
    assert.strictEqual(r.code, 0, r.err);
    assert.match(
      r.err,
      /HTTP 503 from .*; 8 spans tried again in 1000 ms \(try 2 of 6\)\nOpenTelemetry: .* takes spans again\n8 spans sent to .* in 1 request\n$/,
    );
    assert.deepStrictEqual([receiver.requests.length, receiver.spans().length], [2, 8]);
  });

  it("a collector's final answer stops the send: exit 1 and the reason; --out with --endpoint or a bad URL is a usage error", async () => {
    receiver.reply(() => ({ status: 401 }));
    const r = await cli('otlp', tape, '--endpoint', base());
    assert.strictEqual(r.code, 1);
    assert.match(
      r.err,
      /OpenTelemetry: 8 spans dropped: HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/v1\/traces\n0 spans sent to .* in 0 requests; 8 not sent: HTTP 401/,
    );
    assert.strictEqual(receiver.requests.length, 1);
    assert.strictEqual((await cli('otlp', tape, '--endpoint', base(), '--out', path.join(dir, 'x.json'))).code, 2);
    const bad = await cli('otlp', tape, '--endpoint', 'grpc://collector:4317');
    assert.deepStrictEqual([bad.code, /http:\/\/ or https:\/\//.test(bad.err)], [2, true]);
  });
});
