import type { HostChannel } from './channel';

/**
 * "Re-run…" on a request and "Evaluate with a model…" on the session: each asks the host to run
 * its command on the shown session (model and variation are picked in VS Code's own pickers). Only
 * where this window may write the workspace tape: a re-run records a fork, an evaluation a session.
 */
export class RerunActions {
  private sessionId: string | null = null;
  private writable = false;

  constructor(private readonly channel: HostChannel) {}

  get enabled(): boolean {
    return this.sessionId !== null && this.writable;
  }

  update(sessionId: string | null, readOnly: boolean): void {
    this.sessionId = sessionId;
    this.writable = !readOnly;
  }

  rerun(entryId: number): void {
    if (this.sessionId !== null && this.writable) this.channel.post({ type: 'command', command: 'agentTape.rerunRequest', args: [this.sessionId, entryId] });
  }

  evaluate(): void {
    if (this.sessionId !== null && this.writable) this.channel.post({ type: 'command', command: 'agentTape.evaluateSession', args: [this.sessionId] });
  }
}
