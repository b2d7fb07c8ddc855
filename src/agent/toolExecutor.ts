import type { TurnEndOutcome } from '../tape/turnEntries';
import type { ToolCall } from './model/modelPort';
import type { ToolContext, Toolbox, ToolResult } from './tools/tool';
import type { ToolEffect } from './tools/toolEffect';

/** Where a call stands in its turn: which request's answer made it, and its place among that answer's calls (from 0). */
export interface CallSlot {
  turnId: string;
  requestSeq: number;
  index: number;
}

/** What the loop records for one call. */
export interface ToolAnswer {
  result: ToolResult;
  /** false: the call never ran (the result says why); no `error/tool` is recorded for it. */
  ran: boolean;
  /** Added to the result entry's meta (a re-run's replayed result names where it came from). */
  meta?: Record<string, unknown>;
}

/**
 * How the turn loop answers the model's tool calls: the agent runs them in its toolbox, a re-run
 * answers them from the recording. The loop asks for each call in order, writing each answer
 * before asking for the next, and never asks once the turn is cancelled.
 */
export interface ToolExecutor<Stop extends TurnEndOutcome = never> {
  answer(call: ToolCall, slot: CallSlot, signal: AbortSignal): Promise<ToolAnswer>;
  /** What a call of this tool may change, were it answered now (the loop checkpoints before one that may change files). */
  effectOf(name: string): ToolEffect | undefined;
  /** Once a request's calls are answered: an outcome of the executor's own ends the turn there (a re-run that diverged). */
  stopAfter?(requestSeq: number, calls: number): Stop | null;
}

/** Runs each call in a toolbox; a call whose arguments were not a JSON object is answered with an error, nothing run. */
export function toolboxExecutor(tools: Toolbox, context: Omit<ToolContext, 'signal' | 'call'>): ToolExecutor {
  return {
    effectOf: (name) => tools.effectOf(name),
    async answer(call, { turnId, requestSeq }, signal) {
      const result: ToolResult = call.valid
        ? await tools.invoke(call.name, call.arguments, { ...context, signal, call: { turnId, requestSeq, toolCallId: call.id } })
        : { status: 'error', output: `invalid call of ${call.name || UNNAMED_TOOL}: ${call.problem}; nothing was run` };
      return { result, ran: true };
    },
  };
}

// The entry model needs a tool name; a model can send a call without one (an invalid call).
export const UNNAMED_TOOL = 'unnamed_tool';
