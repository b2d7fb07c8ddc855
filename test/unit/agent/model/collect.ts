import type { ModelEvent, StopReason, ToolCall, Usage } from '../../../../src/agent/model/modelPort';

export interface Collected {
  text: string;
  calls: ToolCall[];
  usage?: Usage;
  stop?: StopReason;
  events: ModelEvent[];
}

/** Drains a model stream into what the loop would keep of it. */
export async function collect(events: AsyncIterable<ModelEvent>): Promise<Collected> {
  const out: Collected = { text: '', calls: [], events: [] };
  for await (const e of events) {
    out.events.push(e);
    if (e.type === 'text') out.text += e.delta;
    else if (e.type === 'tool_call') out.calls.push(e.call);
    else if (e.type === 'usage') out.usage = e.usage;
    else out.stop = e.reason;
  }
  return out;
}

/** The error a stream throws, or a failure when it throws none. */
export async function failure(events: AsyncIterable<ModelEvent>): Promise<{ error: unknown; before: Collected }> {
  const before: Collected = { text: '', calls: [], events: [] };
  try {
    for await (const e of events) {
      before.events.push(e);
      if (e.type === 'text') before.text += e.delta;
    }
  } catch (error) {
    return { error, before };
  }
  throw new Error('the stream ended without an error');
}
