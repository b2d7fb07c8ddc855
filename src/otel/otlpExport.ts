import { sessionAgentOf } from '../store/sessionAgent';
import type { TapeStore } from '../store/tapeStore';
import { safeJsonText } from '../tape/safeJsonText';
import { genAiSpans, type GenAiSpan, type ProjectionOptions } from './genAiSpans';
import { otlpJson, readableSpans } from './otlpRequest';
import type { OtlpSender } from './otlpSender';
import { sessionPlacement } from './sessionPlacement';

export interface OtlpExportOptions extends ProjectionOptions {
  /** The sessions to export; every session of the tape when absent. */
  sessions?: readonly string[];
  /** Only the turns that start at or after this time (ms since the epoch). */
  since?: number;
}

/** The turns that start at or after `since` and the spans under them (genAiSpans lists a turn's span before its own). */
function startingSince(spans: readonly GenAiSpan[], since: number): GenAiSpan[] {
  const turns = new Set(spans.filter((s) => s.attributes['gen_ai.operation.name'] === 'invoke_agent' && s.startMs >= since).map((s) => s.spanId));
  return spans.filter((s) => turns.has(s.spanId) || (s.parentSpanId !== null && turns.has(s.parentSpanId)));
}

/** The spans of each exported session, with its agent, one session at a time. */
export function* sessionSpans(store: TapeStore, options: OtlpExportOptions): Generator<{ agent: string; spans: GenAiSpan[] }> {
  for (const sessionId of options.sessions ?? store.sessions().map((s) => s.sessionId)) {
    const agent = sessionAgentOf(store, sessionId);
    const all = genAiSpans(store.entries(sessionId), sessionPlacement(store, sessionId, agent), options);
    const spans = options.since === undefined ? all : startingSince(all, options.since);
    if (spans.length > 0) yield { agent, spans };
  }
}

const HEAD = '{"resourceSpans":[';

/**
 * The sessions as one OTLP/JSON `ExportTraceServiceRequest`, a session at a time: each session's
 * request is serialised on its own and its `resourceSpans` spliced into the one array, so a tape
 * of any size is never one string in memory.
 */
export function* otlpJsonChunks(store: TapeStore, options: OtlpExportOptions): Generator<Buffer> {
  yield Buffer.from(HEAD);
  let first = true;
  for (const { agent, spans } of sessionSpans(store, options)) {
    const json = otlpJson(readableSpans(spans, agent));
    if (!json.startsWith(HEAD) || !json.endsWith(']}')) throw new Error('the OTLP JSON serialiser wrote an unexpected shape');
    const inner = json.slice(HEAD.length, -2);
    if (inner === '') continue;
    // Control and bidirectional characters from the tape written as escapes: the same values, nothing a terminal or editor acts on.
    yield Buffer.from(safeJsonText(first ? inner : `,${inner}`));
    first = false;
  }
  yield Buffer.from(']}\n');
}

/** Spans handed to the sender at once, and how many may wait before the next are read. */
const SEND_SLICE = 512;
const HIGH_WATER = 4 * SEND_SLICE;
/** How long one wait for the collector may last: longer than a batch's tries with their backoff. */
const DRAIN_WAIT_MS = 5 * 60_000;

/**
 * The sessions sent to a collector (`agent-tape otlp --endpoint`): read a session at a time and
 * handed over in slices, waiting while the sender holds more than a few batches, so its queue
 * never drops a span of a tape of any size. Stops at the first request given up.
 */
export async function sendSessions(store: TapeStore, options: OtlpExportOptions, sender: OtlpSender): Promise<void> {
  for (const { agent, spans } of sessionSpans(store, options)) {
    for (let i = 0; i < spans.length; i += SEND_SLICE) {
      sender.send(spans.slice(i, i + SEND_SLICE).map((span) => ({ agent, span })));
      while (sender.status().queuedSpans >= HIGH_WATER && sender.status().failedRequests === 0) await sender.idleWithin(DRAIN_WAIT_MS);
      if (sender.status().failedRequests > 0) return;
    }
  }
}
