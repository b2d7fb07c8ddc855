import type { HostChannel } from './channel';

/**
 * "Fork from here": asks the host to run Tape: Fork Session on the shown session at an entry. Only
 * where this window may write the tape: a tape file's editor is read-only, and the command acts on
 * the workspace tape, not on that file.
 */
export class ForkAction {
  private sessionId: string | null = null;
  private writable = false;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly channel: HostChannel) {}

  get enabled(): boolean {
    return this.sessionId !== null && this.writable;
  }

  /** Called when what can be forked changes (the session, or whether the tape is writable here). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  update(sessionId: string | null, readOnly: boolean): void {
    if (sessionId === this.sessionId && !readOnly === this.writable) return;
    this.sessionId = sessionId;
    this.writable = !readOnly;
    for (const l of this.listeners) l();
  }

  fork(entryId: number): void {
    if (this.sessionId === null || !this.writable) return;
    this.channel.post({ type: 'command', command: 'agentTape.forkSession', args: [this.sessionId, entryId] });
  }
}
