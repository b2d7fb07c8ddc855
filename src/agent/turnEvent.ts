import type { CompactionAudit } from '../tape/audit/compactionAudit';
import type { SubagentOutcome } from '../tape/fork';
import type { TurnEndOutcome, TurnOutcomeKind } from '../tape/turnEntries';
import type { CheckpointReason, CheckpointsOffData } from '../tape/workspaceCheckpoint';
import type { FailureClass } from './model/providerError';

/**
 * What the host UI hears of a turn while it runs. Each event is a plain JSON object whose `type`
 * is the JSON Lines type of `agent-tape run --json`, so the CLI prints it as it comes.
 */
/** What the pre-request hook reports when it wrote a reconstruction anchor. */
export interface CompactionNotice {
  anchorName: string;
  anchorEntryId: number;
  totals: CompactionAudit['totals'];
}

export type TurnEvent =
  | { type: 'text'; turnId: string; requestSeq: number; messageId: string; delta: string }
  /** `valid: false` when the model's arguments were not a JSON object; `input` is then their raw text. */
  | { type: 'tool_call'; turnId: string; requestSeq: number; messageId: string; toolCallId: string; name: string; input: unknown; valid: boolean }
  | {
      type: 'tool_result';
      turnId: string;
      requestSeq: number;
      messageId: string;
      toolCallId: string;
      name: string;
      status: 'ok' | 'error';
      output: string;
      truncated: boolean;
    }
  /** An automatic compaction: its anchor, and what its summary kept of each kind of fact (compactionAudit.ts). */
  | ({ type: 'compaction'; turnId: string; requestSeq: number } & CompactionNotice)
  | { type: 'error'; turnId: string; requestSeq: number; kind: 'provider'; failureClass: FailureClass; message: string }
  /** A line of progress of the subagent that call `toolCallId` runs; the last one, once the child is linked, has its `outcome`. */
  | { type: 'subagent'; turnId: string; requestSeq: number; toolCallId: string; childSessionId: string; line: string; outcome?: SubagentOutcome }
  /** A workspace checkpoint was recorded: `files` changed since `previousId`, with `added` and `removed` lines (text files). */
  | {
      type: 'checkpoint';
      turnId: string;
      reason: CheckpointReason;
      checkpointId: string;
      previousId: string | null;
      files: number;
      added: number;
      removed: number;
    }
  /** Checkpoints are off for the session from now on (said once). */
  | { type: 'checkpoints_off'; turnId: string; reason: CheckpointsOffData['reason']; message: string }
  | { type: 'turn_end'; turnId: string; sessionId: string; outcome: TurnEndOutcome; rounds: number };

/**
 * What a host hears of a session's turn: the loop's events and, from the session around it, an
 * automatic compaction that failed (the turn goes on with budget trimming). Here beside the turn's
 * events, not in the session, so what the session builds (the subagent runner) can name it.
 */
export type SessionEvent = TurnEvent | { type: 'error'; kind: 'compaction'; turnId: string; requestSeq: number; message: string };

export interface TurnOutcome {
  sessionId: string;
  turnId: string;
  outcome: TurnOutcomeKind;
  /** Requests made (the round limit counts them). */
  rounds: number;
  /** The last assistant text: the answer, or what was streamed before a cancel or a failure. */
  text: string;
  /** Set when the provider ended the turn. */
  error?: { failureClass: FailureClass; message: string };
}
