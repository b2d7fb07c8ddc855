import * as assert from 'assert';
import { exportStatusText } from '../../../src/extension/otlp/exportStatusText';
import type { LiveExportStatus } from '../../../src/otel/liveExporter';

const status = (over: Partial<LiveExportStatus>): LiveExportStatus => ({
  sentSpans: 0,
  sentRequests: 0,
  failedRequests: 0,
  droppedSpans: 0,
  queuedSpans: 0,
  lastError: null,
  lastSentAt: null,
  ...over,
});

describe('exportStatusText', () => {
  it('counts the spans sent while the collector takes them', () => {
    const shown = exportStatusText(status({ sentSpans: 1200, sentRequests: 3, lastSentAt: Date.now() }), 'http://127.0.0.1:4318/v1/traces');
    assert.strictEqual(shown.text, '$(pulse) OTel 1,200 spans');
    assert.strictEqual(shown.failing, false);
    assert.match(shown.tooltip, /^OpenTelemetry live export to http:\/\/127\.0\.0\.1:4318\/v1\/traces\nSent: 1,200 spans in 3 requests, the last at /);
    assert.strictEqual(exportStatusText(status({ sentSpans: 1, sentRequests: 1 }), 'http://h/v1/traces').text, '$(pulse) OTel 1 span');
  });

  it('says failing after a request that did not go through, with the counts and the error, and shows no login or query of the URL', () => {
    const shown = exportStatusText(
      status({ sentSpans: 4, sentRequests: 1, failedRequests: 2, droppedSpans: 9, queuedSpans: 3, lastError: 'HTTP 401 from http://h:4318/v1/traces' }),
      'http://user:pw@h:4318/v1/traces?key=k',
    );
    assert.strictEqual(shown.text, '$(warning) OTel: failing');
    assert.strictEqual(shown.failing, true);
    assert.ok(shown.tooltip.includes('Failed requests: 2, dropped spans: 9, queued spans: 3'), shown.tooltip);
    assert.ok(shown.tooltip.includes('Last error: HTTP 401 from http://h:4318/v1/traces'), shown.tooltip);
    assert.ok(!/pw|key=k/.test(shown.tooltip), shown.tooltip);
  });
});
