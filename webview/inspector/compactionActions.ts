import type { CompactionAmendment } from '../../src/protocol/inspector';
import { WritableAction } from './writableAction';

/**
 * Pin, Edit Summary… and Undo Compaction on the compaction in force: each asks the host to append
 * one amendment of it. Only where this window may write the tape, as forking is: a tape file's
 * editor is read-only, and so is a window that does not hold the workspace tape.
 */
export class CompactionActions extends WritableAction {
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
