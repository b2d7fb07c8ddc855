import * as z from 'zod';
import { countSkip } from '../format';
import { readSourceBytes } from '../sourceFiles';
import { parseTranscript } from '../transcriptLines';

/**
 * Copilot CLI's session log (`~/.copilot/session-state/<id>/events.jsonl`): one event a line,
 * `{type, id, timestamp, parentId, agentId?, data}`, the events of its subagents inline (tagged
 * with the subagent's `agentId`). Only events that are not ephemeral are written: the deltas, the
 * idle notices and `session.snapshot_rewind` never reach the file (a rewind rewrites it without
 * what was taken back). Follows the event schema Copilot CLI 1.0.102 ships
 * (`schemas/session-events.schema.json` of @github/copilot).
 */

const count = z.number().nonnegative().optional();

export const copilotEvent = z.looseObject({
  type: z.string().min(1),
  id: z.string().min(1),
  timestamp: z.string().optional(),
  agentId: z.string().min(1).optional(),
  data: z.looseObject({}),
});
export type CopilotEvent = z.infer<typeof copilotEvent>;

export const sessionStartData = z.looseObject({
  sessionId: z.string().min(1),
  selectedModel: z.string().optional(),
  copilotVersion: z.string().optional(),
  context: z.looseObject({ cwd: z.string().optional() }).optional(),
});

export const userMessageData = z.looseObject({ content: z.string(), source: z.string().optional() });

export const toolRequest = z.looseObject({ toolCallId: z.string().min(1), name: z.string().min(1), arguments: z.unknown().optional() });
export const assistantMessageData = z.looseObject({
  messageId: z.string().min(1),
  content: z.string(),
  model: z.string().optional(),
  toolRequests: z.array(z.unknown()).optional(),
  reasoningText: z.string().optional(),
});

export const reasoningData = z.looseObject({ reasoningId: z.string().optional(), content: z.string() });

export const toolStartData = z.looseObject({ toolCallId: z.string().min(1), toolName: z.string().min(1), arguments: z.unknown().optional() });
export const toolCompleteData = z.looseObject({
  toolCallId: z.string().min(1),
  success: z.boolean(),
  result: z.looseObject({ content: z.string().optional(), detailedContent: z.string().optional() }).optional(),
  error: z.looseObject({ message: z.string().optional(), code: z.string().optional() }).optional(),
});

export const subagentStartedData = z.looseObject({
  toolCallId: z.string().min(1),
  agentName: z.string(),
  agentDisplayName: z.string().optional(),
  agentDescription: z.string().optional(),
  model: z.string().optional(),
});

/** One model request's tokens as Copilot CLI counts them: its input includes the cache reads, its output the reasoning. */
export const usageFigures = z.looseObject({
  model: z.string().optional(),
  inputTokens: count,
  outputTokens: count,
  cacheReadTokens: count,
  cacheWriteTokens: count,
  reasoningTokens: count,
});
export type UsageFigures = z.infer<typeof usageFigures>;
export const usageRecordData = z.looseObject({ usage: usageFigures });

export const compactionCompleteData = z.looseObject({
  success: z.boolean(),
  summaryContent: z.string().optional(),
  trigger: z.string().optional(),
  model: z.string().optional(),
  compactionTokensUsed: usageFigures.extend({ requestCount: count }).optional(),
});

export interface EventLine {
  lineNo: number;
  event: CopilotEvent;
}

export interface EventLog {
  events: EventLine[];
  /** The last line is still being written: left for the next run. */
  tornLastLine: boolean;
}

/** Every event of a log; lines that are not events are counted in `skipped`. */
export function eventsOf(text: Buffer | string, skipped: Record<string, number>): EventLog {
  const { lines, invalidLines, tornLastLine } = parseTranscript(text);
  if (invalidLines.length > 0) countSkip(skipped, 'invalid-json', invalidLines.length);
  const events: EventLine[] = [];
  for (const { lineNo, record } of lines) {
    const e = copilotEvent.safeParse(record);
    if (e.success) events.push({ lineNo, event: e.data });
    else countSkip(skipped, 'invalid/event');
  }
  return { events, tornLastLine };
}

/** A session's log read whole (safeRead, bounded). */
export const readEventLog = (file: string, skipped: Record<string, number>): EventLog => eventsOf(readSourceBytes(file), skipped);
