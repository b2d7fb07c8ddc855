import type { CompactionAmendment } from '../../src/protocol/inspector';
import type { HostChannel } from './channel';

/**
 * Pin, Edit Summary… and Undo Compaction on the compaction in force: each asks the host to append
 * one amendment of it. Only where this window may write the tape, as forking is: a tape file's
 * editor is read-only, and so is a window that does not hold the workspace tape.
 */
export class CompactionActions {
  private sessionId: string | null = null;
  private writable = false;
  private readonly listeners: (() => void)[] = [];

  constructor(private readonly channel: HostChannel) {}

  get enabled(): boolean {
    return this.sessionId !== null && this.writable;
  }

  /** Called when what is offered changes (the session, or whether the tape is writable here). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  update(sessionId: string | null, readOnly: boolean): void {
    if (sessionId === this.sessionId && !readOnly === this.writable) return;
    this.sessionId = sessionId;
    this.writable = !readOnly;
    for (const l of this.listeners) l();
  }

  /**
   * Resolves to what the host says was done (`entryId` null: the user declined), rejects with why
   * it refused, and then nothing was appended. The anchor is named so a page showing an older
   * state amends nothing.
   */
  async amend(anchorEntryId: number, amendment: CompactionAmendment): Promise<{ entryId: number | null; message: string }> {
    if (!this.enabled) throw new Error('this tape is read-only here');
    // An undo asks the user first, who may take longer than any reply timeout.
    const reply = await this.channel.request('amendCompaction', { anchorEntryId, amendment }, { waitsForUser: amendment.kind === 'undo' });
    return { entryId: reply.entryId, message: reply.message };
  }
}
