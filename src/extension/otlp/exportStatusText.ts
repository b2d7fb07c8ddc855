import type { LiveExportStatus } from '../../otel/liveExporter';
import { shownUrl } from '../../otel/otlpEndpoint';

/**
 * What the live export's status bar item says: the spans sent, or that the collector fails (its
 * last request did not go through: `lastError` is cleared by the next success). The endpoint is
 * shown without a login or query; header values are never part of a status. Kept free of
 * `vscode` for unit tests.
 */
export function exportStatusText(status: LiveExportStatus, url: string): { text: string; tooltip: string; failing: boolean } {
  const failing = status.lastError !== null;
  const spans = `${status.sentSpans.toLocaleString('en-US')} span${status.sentSpans === 1 ? '' : 's'}`;
  const lines = [
    `OpenTelemetry live export to ${shownUrl(url)}`,
    `Sent: ${spans} in ${status.sentRequests.toLocaleString('en-US')} request${status.sentRequests === 1 ? '' : 's'}${status.lastSentAt === null ? '' : `, the last at ${new Date(status.lastSentAt).toLocaleTimeString()}`}`,
    `Failed requests: ${status.failedRequests.toLocaleString('en-US')}, dropped spans: ${status.droppedSpans.toLocaleString('en-US')}, queued spans: ${status.queuedSpans.toLocaleString('en-US')}`,
    ...(status.lastError === null ? [] : [`Last error: ${status.lastError}`]),
    'Click to show the log.',
  ];
  return { text: failing ? '$(warning) OTel: failing' : `$(pulse) OTel ${spans}`, tooltip: lines.join('\n'), failing };
}
