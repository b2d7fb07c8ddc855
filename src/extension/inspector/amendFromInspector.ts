import * as vscode from 'vscode';
import { amendmentMessage } from '../../inspector/amendmentMessage';
import { anchorsOf } from '../../inspector/anchorsTimeline';
import type { CompactionAmendment } from '../../protocol/inspector';
import type { WorkspaceTape } from '../workspaceTape';

const UNDO = 'Undo Compaction';

interface AmendDeps {
  log: vscode.LogOutputChannel;
  tape: WorkspaceTape;
}

/**
 * Pin, Edit Summary… and Undo Compaction from the Anchors view: one amendment through the
 * session's handle on the workspace tape, which checks it against the session as it is now (the
 * page may show an older state) and writes nothing when it refuses. An undo changes what every
 * later request reads, so it asks first, and then says what the next context starts from and what
 * of it does not fit.
 */
export async function amendFromInspector(
  deps: AmendDeps,
  sessionId: string,
  anchorEntryId: number,
  amendment: CompactionAmendment,
): Promise<{ entryId: number; message: string } | null> {
  const ws = await deps.tape.open();
  if (ws.state.mode === 'readOnly') throw new Error(`the tape is read-only in this window (${ws.state.reason}): nothing was amended`);
  if (amendment.kind === 'undo') {
    const choice = await vscode.window.showWarningMessage(
      `Undo the compaction at entry #${anchorEntryId}?`,
      {
        modal: true,
        detail:
          'Later requests of this session go back to the anchor before it and read the history it summarised, fitted to the model window. ' +
          'Nothing is deleted: the undo is one more entry, and the compaction and everything before it stay on the tape.',
      },
      UNDO,
    );
    if (choice !== UNDO) return null;
  }
  const tape = deps.tape.tapeOf(ws);
  const receipt = await tape.session(sessionId).amendCompaction(amendment, anchorEntryId);
  const message = amendmentMessage(amendment, receipt, anchorsOf(tape.reader, sessionId));
  deps.log.info(`session ${sessionId}: ${message}`);
  if (amendment.kind === 'undo') void vscode.window.showInformationMessage(`Agent Tape: ${message}`);
  return { entryId: receipt.entry.entryId, message };
}
