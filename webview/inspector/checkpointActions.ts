import { WritableAction } from './writableAction';

/**
 * What the transcript offers of the workspace checkpoints: a file a turn changed opens VS Code's
 * diff editor between the turn's two checkpoints (`agentTape.openCheckpointDiff`), and "Restore
 * Files to Here" takes the workspace's files back to the checkpoint at or before an entry
 * (`agentTape.restoreFiles`), offered only from the first entry a checkpoint of the session stands
 * for. Both only where this window may write the tape, as forking is: the checkpoints are the
 * workspace tape's, and a tape file's editor (read-only) shows another tape, whose are not here.
 */
export class CheckpointActions extends WritableAction {
  /** The shown session's first entry a checkpoint stands for; null while it has none. */
  private from: number | null = null;

  // Where checkpoints begin is the session's: the new one's transcript says it.
  protected override sessionSwitched(): void {
    this.from = null;
  }

  /** The shown session's `checkpointsFrom`, as each transcript page and delta brings it. */
  setCheckpointsFrom(from: number | undefined): void {
    if ((from ?? null) === this.from) return;
    this.from = from ?? null;
    this.changed();
  }

  /** Whether a changed file opens its diff (else the files are listed as text). */
  get diffsOffered(): boolean {
    return this.enabled;
  }

  /** Whether "Restore Files to Here" is offered for a restore at `entryId`. */
  restorableAt(entryId: number): boolean {
    return this.diffsOffered && this.from !== null && entryId >= this.from;
  }

  restore(entryId: number): void {
    if (this.sessionId === null || !this.restorableAt(entryId)) return;
    this.channel.post({ type: 'command', command: 'agentTape.restoreFiles', args: [this.sessionId, entryId] });
  }

  openDiff(beforeId: string, afterId: string, path: string): void {
    if (this.sessionId === null || !this.diffsOffered) return;
    this.channel.post({ type: 'command', command: 'agentTape.openCheckpointDiff', args: [this.sessionId, beforeId, afterId, path] });
  }
}
