import { linkSubagent, startSubagent } from '../../store/subagentLinks';
import type { TapeStore } from '../../store/tapeStore';
import { errorMessage } from '../../tape/errorMessage';
import type { SubagentOutcome } from '../../tape/fork';
import { oneLine } from '../../tape/oneLine';
import { describeInput } from '../tools/describeInput';
import type { Toolbox } from '../tools/tool';
import type { SessionEvent, TurnEvent, TurnOutcome } from '../turnEvent';
import { RUN_SUBAGENT, type SubagentPort, type SubagentRequest, type SubagentResult } from './subagentPort';
import { ToolSubset } from './toolSubset';

/** Requests a subagent may make unless its host says otherwise: a side task, not a second session's worth. */
export const DEFAULT_SUBAGENT_MAX_ROUNDS = 8;

const LINE_MAX = 120;
const SUMMARY_MAX = 500;

/** One turn of a child session, as the parent's host runs it (same model, workspace, permissions). */
export interface ChildTurn {
  sessionId: string;
  tools: Toolbox;
  maxRounds: number;
  prompt: string;
  signal: AbortSignal;
  onEvent: (event: SessionEvent) => void;
}

export interface SubagentRunnerOptions {
  store: TapeStore;
  parentSessionId: string;
  /** The parent's tools: a child gets some of them, run by the same toolbox. */
  parentTools: Toolbox;
  maxRounds: number;
  // A function rather than an AgentSession import: the session builds the runner.
  runChild: (turn: ChildTurn) => Promise<TurnOutcome>;
  /** The parent turn's listener: the child's progress reaches it as `subagent` events. */
  onEvent?: (event: TurnEvent) => void;
}

type Ending = Omit<SubagentResult, 'childSessionId'>;

/**
 * Runs subagents for one parent turn: a child session on the same tape with a subset of the
 * parent's tools and a budget of its own, started with a `subagent/start` anchor and linked to the
 * parent with a `subagent/linked` receipt however it ends, so the parent can always read what the
 * child did up to that point.
 */
export class SubagentRunner implements SubagentPort {
  constructor(private readonly options: SubagentRunnerOptions) {}

  async run(request: SubagentRequest, signal: AbortSignal): Promise<SubagentResult> {
    const { store, parentSessionId, maxRounds } = this.options;
    const tools = this.toolsFor(request.tools);
    const { childSessionId } = await startSubagent(store, parentSessionId, {
      task: request.task,
      ...(request.instructions !== undefined ? { instructions: request.instructions } : {}),
      tools: tools.names(),
      toolCallId: request.call.toolCallId,
    });
    const progress = (line: string, outcome?: SubagentOutcome) =>
      this.options.onEvent?.({ type: 'subagent', ...request.call, childSessionId, line, ...(outcome !== undefined ? { outcome } : {}) });
    progress(`started: ${oneLine(request.task, LINE_MAX)}`);

    let ending: Ending;
    let thrown: { error: unknown } | undefined;
    try {
      const turn = await this.options.runChild({
        sessionId: childSessionId,
        tools,
        maxRounds,
        prompt: childPrompt(request),
        signal,
        onEvent: narrator(progress),
      });
      ending = endingOf(turn);
    } catch (error) {
      thrown = { error };
      ending = { outcome: signal.aborted ? 'cancelled' : 'failed', answer: '', reason: errorMessage(error) };
    }
    try {
      await linkSubagent(store, parentSessionId, childSessionId, ending.outcome, oneLine(ending.reason ?? ending.answer, SUMMARY_MAX));
    } catch (linkError) {
      // The child's own failure is what the parent must hear about; a link that also failed comes second.
      if (thrown === undefined) throw linkError;
    }
    progress(ending.reason === undefined ? ending.outcome : `${ending.outcome}: ${oneLine(ending.reason, LINE_MAX)}`, ending.outcome);
    if (thrown !== undefined) throw thrown.error;
    return { childSessionId, ...ending };
  }

  /** The requested tools of the parent's (all but run_subagent by default); an unknown or forbidden name is the caller's error. */
  private toolsFor(requested: readonly string[] | undefined): ToolSubset {
    const own = this.options.parentTools
      .specs()
      .map((spec) => spec.name)
      .filter((name) => name !== RUN_SUBAGENT);
    if (requested === undefined) return new ToolSubset(this.options.parentTools, own);
    if (requested.includes(RUN_SUBAGENT))
      throw new Error(`tools: a subagent cannot be given ${RUN_SUBAGENT} (subagents do not start subagents); nothing was started`);
    const unknown = requested.filter((name) => !own.includes(name));
    if (unknown.length > 0) {
      throw new Error(
        `tools: ${unknown.map((n) => JSON.stringify(n)).join(', ')} ${unknown.length === 1 ? 'is not a tool' : 'are not tools'} of this session (its tools: ${own.join(', ')}); nothing was started`,
      );
    }
    return new ToolSubset(this.options.parentTools, [...new Set(requested)]);
  }
}

/** The child's first message: it starts with no history, so the task must stand on its own. */
function childPrompt({ task, instructions }: SubagentRequest): string {
  const intro =
    'You are a subagent: another agent handed you the task below. Work on it with your tools, then answer with what you found or did. ' +
    'Your final message is all the other agent gets back, so make it complete on its own.';
  // The task last: it is what the child acts on.
  return [intro, ...(instructions !== undefined && instructions.trim() !== '' ? [`Instructions:\n${instructions}`] : []), `Task:\n${task}`].join('\n\n');
}

function endingOf(turn: TurnOutcome): Ending {
  switch (turn.outcome) {
    case 'answer':
      return { outcome: 'completed', answer: turn.text };
    case 'cancelled':
      return { outcome: 'cancelled', answer: turn.text, reason: 'cancelled with the turn that started it' };
    case 'round_limit':
      return { outcome: 'failed', answer: turn.text, reason: `reached its round limit (${turn.rounds} requests) while still calling tools` };
    case 'provider_error':
      return { outcome: 'failed', answer: turn.text, reason: `the model failed: ${turn.error?.message ?? 'no reason given'}` };
  }
}

/** The child's events as progress lines: each tool call, a failed result, and its text summed up once it stops writing. */
function narrator(progress: (line: string) => void): (event: SessionEvent) => void {
  let text = '';
  const flushText = () => {
    if (text.trim() !== '') progress(`wrote: ${oneLine(text, LINE_MAX)}`);
    text = '';
  };
  return (event) => {
    switch (event.type) {
      case 'text':
        text += event.delta;
        break;
      case 'tool_call':
        flushText();
        progress(`${event.name} ${oneLine(typeof event.input === 'string' ? event.input : describeInput(event.input), LINE_MAX)}`);
        break;
      case 'tool_result':
        if (event.status === 'error') progress(`${event.name} failed: ${oneLine(event.output, LINE_MAX)}`);
        break;
      case 'compaction':
        progress(`compacted its context (${event.anchorName})`);
        break;
      case 'error':
        progress(event.kind === 'compaction' ? `compaction failed: ${oneLine(event.message, LINE_MAX)}` : `model error: ${oneLine(event.message, LINE_MAX)}`);
        break;
      case 'turn_end':
        flushText();
        break;
      case 'subagent':
        break;
    }
  };
}
