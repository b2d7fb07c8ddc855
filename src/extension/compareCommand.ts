import * as vscode from 'vscode';
import { comparedSessionOf } from '../agent/session/comparedSession';
import type { OpenTape } from '../agent/session/openTape';
import { childrenOf, parentOf } from '../store/forks';
import { compareSessions } from '../tape/comparison/sessionComparison';
import { sessionComparisonText } from '../tape/comparison/sessionComparisonText';
import { pickSession, sessionArg } from './replay/verifyCommand';
import type { Deps } from './deps';
import { reportingCommands } from './sessionCommands';

/** Comparisons are virtual documents: read-only, and gone with the window. */
const SCHEME = 'agent-tape-compare';

const requireSession = (tape: OpenTape, sessionId: string): string => {
  if (tape.store.headEntryId(sessionId) === 0) throw new Error(`the workspace tape has no session ${JSON.stringify(sessionId)}`);
  return sessionId;
};

/**
 * The sessions to compare one with: its parent and its forks first (what it is usually compared
 * with), then the others, newest first within each.
 */
function otherSessions(tape: OpenTape, sessionId: string): vscode.QuickPickItem[] {
  const parent = parentOf(tape.store, sessionId)?.sessionId;
  const children = new Set(childrenOf(tape.store, sessionId).map((c) => c.sessionId));
  const related = (id: string): boolean => id === parent || children.has(id);
  return tape.store
    .sessions()
    .filter((s) => s.sessionId !== sessionId)
    .sort((a, b) => Number(related(b.sessionId)) - Number(related(a.sessionId)) || b.lastCreatedAt - a.lastCreatedAt)
    .map((s) => ({
      label: s.sessionId,
      description: `${s.sessionId === parent ? 'parent · ' : children.has(s.sessionId) ? 'fork · ' : ''}${s.entryCount} entries · ${new Date(s.lastCreatedAt).toLocaleString()}`,
    }));
}

/**
 * "Tape: Compare With…": two sessions of the workspace tape side by side, turn by turn, as
 * `agent-tape diff` prints them, in a read-only document titled "A ↔ B". Given one session it asks
 * for the other (from the palette, for both). Returns the document's uri, for scripts and tests.
 */
export function registerCompareSessions(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const texts = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = { onDidChange: changed.event, provideTextDocumentContent: (uri) => texts.get(uri.toString()) ?? '' };

  const run = reportingCommands(deps.log);
  return vscode.Disposable.from(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    run('agentTape.compareSessions', async (given?: unknown, otherGiven?: unknown): Promise<vscode.Uri | undefined> => {
      const tape = deps.tape.tapeOf(await deps.tape.open());
      const first =
        given === undefined
          ? await pickSession(tape.store, deps.sessions.current(tape.store), 'Tape: Compare With…', 'Session to compare')
          : sessionArg.parse(given);
      if (first === undefined) return undefined;
      const a = requireSession(tape, first);
      let b: string | undefined = otherGiven === undefined ? undefined : sessionArg.parse(otherGiven);
      if (b === undefined) {
        const items = otherSessions(tape, a);
        if (items.length === 0) {
          void vscode.window.showInformationMessage('Agent Tape: the workspace tape has no other session to compare with.');
          return undefined;
        }
        b = (await vscode.window.showQuickPick(items, { title: `Tape: Compare ${a} With…`, placeHolder: 'Session to compare with' }))?.label;
        if (b === undefined) return undefined;
      }
      requireSession(tape, b);
      const text = sessionComparisonText(a, b, compareSessions(comparedSessionOf(tape, a), comparedSessionOf(tape, b)));
      const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${`${a} ↔ ${b}`.replace(/[\\/]/g, '_')}` });
      texts.set(uri.toString(), text);
      changed.fire(uri);
      await vscode.window.showTextDocument(uri, { preview: true });
      return uri;
    }),
  );
}
