import * as path from 'path';
import * as vscode from 'vscode';
import * as z from 'zod/mini';
import { OpenTape } from '../../agent/session/openTape';
import { describeDifference, verifyTape, type RequestReport, type VerifyReport } from '../../rerun/verify';
import { openTapeFile } from '../../store/tapeFile';
import type { TapeStore } from '../../store/tapeStore';
import type { Deps } from '../deps';
import { reportingCommands } from '../sessionCommands';
import { codeSpan } from '../tools/markdownCode';

/** Reports are virtual documents: read-only, and gone with the window. */
const SCHEME = 'agent-tape-verify';

/** A session id (the palette, the inspector) or a row of the sessions view. */
export const sessionArg = z.union([
  z.string().check(z.minLength(1)),
  z.pipe(
    z.looseObject({ sessionId: z.string() }),
    z.transform((row) => row.sessionId),
  ),
]);

/**
 * "Tape: Verify Replay": verification replay of a session of the workspace tape (the one given,
 * else the one picked), or of every session of a tape file given as a uri, shown as a Markdown
 * preview of a read-only report. Returns the report, for scripts and tests.
 */
export function registerVerifyReplay(deps: Pick<Deps, 'log' | 'tape' | 'sessions'>): vscode.Disposable {
  const reports = new Map<string, string>();
  const changed = new vscode.EventEmitter<vscode.Uri>();
  const provider: vscode.TextDocumentContentProvider = { onDidChange: changed.event, provideTextDocumentContent: (uri) => reports.get(uri.toString()) ?? '' };

  const show = async (title: string, report: VerifyReport): Promise<void> => {
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/${title.replace(/[\\/]/g, '_')} verification.md` });
    reports.set(uri.toString(), reportMarkdown(title, report));
    changed.fire(uri);
    try {
      await vscode.commands.executeCommand('markdown.showPreview', uri);
    } catch {
      // Without the built-in Markdown extension the source is readable too.
      await vscode.window.showTextDocument(uri, { preview: true });
    }
  };

  const run = reportingCommands(deps.log);
  return vscode.Disposable.from(
    changed,
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, provider),
    run('agentTape.verifyReplay', async (given?: unknown, sessionGiven?: unknown): Promise<VerifyReport | undefined> => {
      if (given instanceof vscode.Uri) {
        if (given.scheme !== 'file') throw new Error(`only tape files on this machine can be verified, not ${given.toString()}`);
        const sessionId = sessionGiven === undefined ? undefined : sessionArg.parse(sessionGiven);
        const store = await openTapeFile(given.fsPath, { readOnly: true });
        try {
          const report = verifyTape(new OpenTape(store), { sessionId });
          await show(path.basename(given.fsPath), report);
          return report;
        } finally {
          await store.close();
        }
      }
      const tape = deps.tape.tapeOf(await deps.tape.open());
      const sessionId = given === undefined ? await pickSession(tape.store, deps.sessions.current(tape.store)) : sessionArg.parse(given);
      if (sessionId === undefined) return undefined;
      const report = verifyTape(tape, { sessionId });
      deps.log.info(`verify replay of ${sessionId}: ${report.ok ? 'ok' : 'FAILED'} (${JSON.stringify(report.summary)})`);
      await show(sessionId, report);
      return report;
    }),
  );
}

/** The session to act on (verify, by default): the only one, else the user's pick with the current session first. */
export async function pickSession(
  store: TapeStore,
  current: string | undefined,
  title = 'Tape: Verify Replay',
  placeHolder = 'Session whose recorded requests to rebuild and compare',
): Promise<string | undefined> {
  const sessions = store.sessions().sort((a, b) => Number(b.sessionId === current) - Number(a.sessionId === current) || b.lastCreatedAt - a.lastCreatedAt);
  if (sessions.length === 0) {
    void vscode.window.showInformationMessage('Agent Tape: the workspace tape has no sessions yet.');
    return undefined;
  }
  if (sessions.length === 1) return sessions[0].sessionId;
  const picked = await vscode.window.showQuickPick(
    sessions.map((s) => ({
      label: s.sessionId,
      description: `${s.sessionId === current ? 'current · ' : ''}${s.entryCount} entries · ${new Date(s.lastCreatedAt).toLocaleString()}`,
    })),
    { title, placeHolder },
  );
  return picked?.label;
}

const mark = (r: RequestReport): string => (r.status === 'match' || r.status === 'merged' ? '✓' : '✗');

function resultOf(r: RequestReport): string {
  switch (r.status) {
    case 'match':
      return 'match';
    case 'merged':
      return `merged from ${codeSpan(r.from.sessionId)} #${r.from.entryId}, verified there`;
    case 'cannot_rebuild':
      return `**cannot rebuild**: ${codeSpan(r.reason)}`;
    case 'mismatch':
      return `**mismatch**: ${codeSpan(describeDifference(r.difference))}`;
  }
}

/** The report as Markdown; whatever comes from the tape is in code spans, so it is never read as Markdown or HTML. */
function reportMarkdown(title: string, report: VerifyReport): string {
  const n = report.summary;
  const out = [
    `# Verification replay: ${codeSpan(title)}`,
    '',
    `**${report.ok ? 'Verified' : 'Failed'}**: ${n.requests} recorded requests in ${n.sessions} ${n.sessions === 1 ? 'session' : 'sessions'}: ${n.match} match, ${n.mismatch} mismatch, ${n.cannotRebuild} cannot rebuild${n.merged > 0 ? `, ${n.merged} merged` : ''}; ${n.integrityProblems} integrity problems.`,
    '',
    'Each request is rebuilt from the tape up to the entry its manifest was built from, with the policy and builder it names, and compared with the manifest item by item and by its prompt hash. ' +
      'The tape is also checked for dense entry ids, unique provenance keys, one manifest per request and manifests whose hash still matches their content.',
  ];
  for (const s of report.sessions) {
    out.push('', `## ${codeSpan(s.sessionId)}`, '');
    if (s.note !== null) out.push(`${s.note}.`, '');
    for (const r of s.requests) {
      const which =
        r.turnId === null
          ? `entry #${r.entryId}`
          : `${codeSpan(`${r.turnId}/${r.requestSeq}`)} #${r.entryId}${r.latestEntryId === null ? '' : ` (from entries up to #${r.latestEntryId})`}`;
      out.push(`- ${mark(r)} ${which}: ${resultOf(r)}`);
    }
    if (s.integrity.length > 0) {
      out.push('', '### Integrity problems', '');
      for (const p of s.integrity) out.push(`- ✗ ${p.check}${p.entryId === null ? '' : ` at #${p.entryId}`}: ${codeSpan(p.message)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
