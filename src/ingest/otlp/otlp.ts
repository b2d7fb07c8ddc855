import type { Mapped } from '../format';
import type { SourceFormat } from '../sourceFormat';
import { otlpSessions } from './otlpSessions';
import { readSpans } from './otlpSpans';

/**
 * OpenTelemetry trace files (OTLP/JSON, whole or one request a line: Copilot Chat's Agent Debug
 * export, a collector's file exporter), read whole on every run: a file exporter only appends, and
 * the keys from trace and span ids make a run append only the spans it had not read.
 * No path names them: a file is told by its first bytes, a trace request.
 */
export const otlp: SourceFormat = {
  name: 'otlp',
  sourceOfPath: () => null,
  recognizes: (_source, head) => /^\s*\{\s*"resourceSpans"\s*:/.test(head.toString('utf8', 0, 4096)),
  read(source) {
    const skipped: Record<string, number> = {};
    const { spans, tornLastLine } = readSpans(source, skipped);
    return Promise.resolve<Mapped>({ sessions: otlpSessions(spans, source, skipped), skipped, tornLastLine });
  },
};
