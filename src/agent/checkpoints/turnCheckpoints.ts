import type { CheckpointData, CheckpointReason, CheckpointsOffData } from '../../tape/workspaceCheckpoint';

/** What taking a checkpoint gave: the event's data, or, once per session, why checkpoints are off. */
export type CheckpointTaken = { kind: 'checkpoint'; data: CheckpointData } | { kind: 'off'; data: CheckpointsOffData };

/** The port a turn takes checkpoints through: the loop knows nothing of git (which calls need one, it reads from each tool's effect). */
export interface TurnCheckpoints {
  /** null when checkpoints are off for the session and that was said already. Never rejects. */
  take(sessionId: string, reason: CheckpointReason, turnId: string, diffFrom?: string): Promise<CheckpointTaken | null>;
}
