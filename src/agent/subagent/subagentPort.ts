import type { SubagentOutcome } from '../../tape/fork';
import type { ToolCallRef } from '../tools/toolCallRef';

/** The tool that starts a subagent; a subagent is never given it, so subagents do not nest. */
export const RUN_SUBAGENT = 'run_subagent';

export interface SubagentRequest {
  task: string;
  instructions?: string;
  /** Names of the parent's tools the child may use; all of them but run_subagent when omitted. */
  tools?: readonly string[];
  /** The parent's call that starts the child: the child's start anchor and progress events name it. */
  call: ToolCallRef;
}

export interface SubagentResult {
  childSessionId: string;
  outcome: SubagentOutcome;
  /** The child's last assistant text: its answer, or what it wrote before it failed or was cancelled. */
  answer: string;
  /** Why a child did not complete. */
  reason?: string;
}

/**
 * What run_subagent needs of its host: a child session run to its end. The port exists because a
 * tool cannot reach the agent session that runs it (the session imports the tools).
 */
export interface SubagentPort {
  /**
   * Runs a child session and links it to the parent however it ends. Rejects on a bad request
   * (before any child exists) and when the tape fails.
   */
  run(request: SubagentRequest, signal: AbortSignal): Promise<SubagentResult>;
}
