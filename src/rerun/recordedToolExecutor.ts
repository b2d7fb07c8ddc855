import { VIEW_ASSEMBLED, TURN_END } from '../tape/entryNames';
import type { ToolCall } from '../agent/model/modelPort';
import { UNNAMED_TOOL, type CallSlot, type ToolAnswer, type ToolExecutor } from '../agent/toolExecutor';
import type { ToolEffect } from '../agent/tools/toolEffect';
import type { TapeReader } from '../store/lineage';
import type { Entry } from '../tape/entry';
import { replayedFromMeta, sameToolCall } from '../tape/evaluation/rerunEntries';
import { isInterruptedResultKey } from '../tape/interruptedKey';
import { manifestOfEntry } from '../tape/manifest';
import { pairKey } from '../tape/toolPairs';

/** A call the recording made, with its result (null when it never finished: a crash repair's stand-in is none). */
export interface RecordedCall {
  entryId: number;
  toolCallId: string;
  name: string;
  input: unknown;
  result: { entryId: number; status: 'ok' | 'error'; output: string; truncated: boolean } | null;
}

/** Where a re-run first did what the recording did not. */
export interface Divergence {
  requestSeq: number;
  /** Among the step's calls, from 0. */
  index: number;
  /** The fork's call; null when the fork's step left out a call the recording made. */
  call: { name: string; input: unknown } | null;
  /** The source's call at that step; null when it made none there. */
  recorded: { name: string; input: unknown; entryId: number } | null;
}

/** What became of a call: the recording's result, run for real, or not run (the re-run stopped). */
export type CallFate = 'replayed' | 'run' | 'not_run';

/**
 * A continued re-run's tool calls answered from the recording: a call identical (name and
 * canonical arguments) to the one recorded at the same step (the same request of the turn, the
 * same place among its calls) gets the recorded result, marked `replayedFrom`. The first that
 * differs, or a step that leaves out a call the recording made, is the divergence: without `live`
 * that call and the rest of its request are not run and the turn stops as `diverged`; with it,
 * that call and every later one run for real, since the recording's results say nothing of what
 * the fork did differently.
 */
export class RecordedToolExecutor implements ToolExecutor<'diverged'> {
  private divergenceAt: Divergence | null = null;
  private live = false;
  private stopped = false;
  private readonly fates = new Map<string, CallFate>();

  /** `recorded`: the source turn's calls by request number; `sourceSessionId`: where their results are. */
  constructor(
    private readonly recorded: ReadonlyMap<number, readonly RecordedCall[]>,
    private readonly sourceSessionId: string,
    private readonly liveTools?: ToolExecutor,
  ) {}

  get divergence(): Divergence | null {
    return this.divergenceAt;
  }

  /** What became of call `index` of request `requestSeq`; undefined for a call never asked about. */
  fateOf(requestSeq: number, index: number): CallFate | undefined {
    return this.fates.get(`${requestSeq}/${index}`);
  }

  /** A recorded answer changes nothing; with live tools any call may be the one that runs for real. */
  effectOf(name: string): ToolEffect | undefined {
    return this.liveTools === undefined ? 'read' : this.liveTools.effectOf(name);
  }

  async answer(call: ToolCall, slot: CallSlot, signal: AbortSignal): Promise<ToolAnswer> {
    const { answer, fate } = await this.decide(call, slot, signal);
    this.fates.set(`${slot.requestSeq}/${slot.index}`, fate);
    return answer;
  }

  stopAfter(requestSeq: number, calls: number): 'diverged' | null {
    const recorded = this.recorded.get(requestSeq) ?? [];
    if (!this.stopped && !this.live && calls > 0 && recorded.length > calls) {
      // The recording's later results may depend on what the left-out call did.
      this.divergenceAt ??= { requestSeq, index: calls, call: null, recorded: recordedRef(recorded[calls]) };
      if (this.liveTools === undefined) this.stopped = true;
      else this.live = true;
    }
    return this.stopped ? 'diverged' : null;
  }

  private async decide(call: ToolCall, slot: CallSlot, signal: AbortSignal): Promise<{ answer: ToolAnswer; fate: CallFate }> {
    if (this.stopped) return notRun('not run: the re-run stopped at an earlier call of this request');
    const asked = { name: call.name || UNNAMED_TOOL, input: call.valid ? call.arguments : call.rawArguments };
    const rec = this.recorded.get(slot.requestSeq)?.[slot.index];
    if (!this.live && rec !== undefined && rec.result !== null && sameToolCall(asked, rec)) {
      const { status, output, truncated } = rec.result;
      return {
        answer: { result: { status, output, truncated }, ran: false, meta: replayedFromMeta({ sessionId: this.sourceSessionId, entryId: rec.result.entryId }) },
        fate: 'replayed',
      };
    }
    this.divergenceAt ??= { requestSeq: slot.requestSeq, index: slot.index, call: asked, recorded: recordedRef(rec) };
    if (this.liveTools === undefined) {
      this.stopped = true;
      return notRun(`not run: this call differs from the one recorded at this step (${describeRecorded(asked, rec)}); the re-run stopped here`);
    }
    this.live = true;
    return { answer: await this.liveTools.answer(call, slot, signal), fate: 'run' };
  }
}

/**
 * The source's tool calls of a turn, by request number, from request entry `fromEntryId` to the
 * turn's end, each with its result (a crash repair's stand-in is none: the call never finished).
 */
export function recordedCallsOf(reader: TapeReader, sessionId: string, fromEntryId: number, turnId: string): Map<number, RecordedCall[]> {
  const byRequest = new Map<number, RecordedCall[]>();
  const byPair = new Map<string, RecordedCall>();
  let seq: number | null = null;
  const turnOf = (e: Entry): unknown => (e.kind === 'event' ? (e.payload.data as { turnId?: unknown } | undefined)?.turnId : e.meta.turnId);
  for (const e of reader.entries(sessionId, { fromEntryId })) {
    if (turnOf(e) !== turnId) continue;
    if (e.kind === 'event' && e.name === TURN_END) break;
    if (e.kind === 'event' && e.name === VIEW_ASSEMBLED) seq = manifestOfEntry(e).requestSeq;
    else if (e.kind === 'tool_call' && seq !== null) {
      const call: RecordedCall = { entryId: e.entryId, toolCallId: String(e.payload.toolCallId), name: e.name, input: e.payload.input, result: null };
      byRequest.set(seq, [...(byRequest.get(seq) ?? []), call]);
      byPair.set(pairKey(String(e.payload.messageId), call.toolCallId), call);
    } else if (e.kind === 'tool_result' && !isInterruptedResultKey(e.provenanceKey)) {
      const call = byPair.get(pairKey(String(e.payload.messageId), String(e.payload.toolCallId)));
      if (call !== undefined)
        call.result = {
          entryId: e.entryId,
          status: e.payload.status === 'ok' ? 'ok' : 'error',
          output: String(e.payload.output),
          truncated: e.payload.truncated === true,
        };
    }
  }
  return byRequest;
}

const notRun = (output: string): { answer: ToolAnswer; fate: CallFate } => ({ answer: { result: { status: 'error', output }, ran: false }, fate: 'not_run' });

const recordedRef = (rec: RecordedCall | undefined): Divergence['recorded'] =>
  rec === undefined ? null : { name: rec.name, input: rec.input, entryId: rec.entryId };

function describeRecorded(call: { name: string }, rec: RecordedCall | undefined): string {
  if (rec === undefined) return 'the recording made no call here';
  if (rec.name !== call.name) return `the recording called ${rec.name}`;
  if (rec.result === null) return `the recording's ${rec.name} call here has no result`;
  return `the recording called ${rec.name} with other arguments`;
}
