import { WritableAction } from './writableAction';

/**
 * "Fork from here": asks the host to run Tape: Fork Session on the shown session at an entry. Only
 * where this window may write the tape: a tape file's editor is read-only, and the command acts on
 * the workspace tape, not on that file.
 */
export class ForkAction extends WritableAction {
  fork(entryId: number): void {
    if (this.sessionId === null || !this.writable) return;
    this.channel.post({ type: 'command', command: 'agentTape.forkSession', args: [this.sessionId, entryId] });
  }
}
