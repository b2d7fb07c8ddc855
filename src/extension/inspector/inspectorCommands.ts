import * as vscode from 'vscode';
import * as z from 'zod/mini';

/** The session a command from the inspector acts on (the one it shows); none means the current one. */
const sessionArgs = z.union([z.tuple([]), z.tuple([z.string()])]);
/** "Fork from here": the session shown and the entry (a position of its view). */
const forkArgs = z.tuple([z.string(), z.number()]);
const replayArgs = z.tuple([z.string()]);
/** "Re-run…" on a request of the session shown; "Evaluate with a model…" on the session shown. */
const rerunArgs = z.tuple([z.string(), z.number()]);
const evaluateArgs = z.tuple([z.string()]);
/** "Compare" on a relative in the Lineage view: the session shown and the other one. */
const compareArgs = z.tuple([z.string(), z.string()]);
/** A file changed between two checkpoints: the session shown, the two checkpoint ids and the workspace path; "Restore Files to Here": the session and the entry. */
const checkpointDiffArgs = z.tuple([z.string(), z.string(), z.string(), z.string()]);
const restoreArgs = z.tuple([z.string(), z.number()]);

/** Checkpoints are the workspace tape's: a tape file's editor shows another tape, whose files are not this workspace's. */
const workspaceTapeOnly = (where: CommandSource): void => {
  if (where.tapeFile !== undefined) throw new Error('file checkpoints are shown and restored for the workspace tape only, not a tape file opened in an editor');
};

/**
 * The Agent Tape commands the inspector page may run, each mapping the page's arguments onto the
 * command's own. Only these: the page shows tape text, and whatever reaches it must not be able
 * to run an arbitrary command of VS Code or another extension.
 */
const WHITELIST: Record<string, (args: readonly (string | number)[], where: CommandSource) => Thenable<unknown>> = {
  'agentTape.exportSession': (args) => vscode.commands.executeCommand('agentTape.exportSession', undefined, ...sessionArgs.parse(args)),
  'agentTape.compactSession': (args) => vscode.commands.executeCommand('agentTape.compactSession', ...sessionArgs.parse(args)),
  'agentTape.handoff': (args) => vscode.commands.executeCommand('agentTape.handoff', undefined, undefined, ...sessionArgs.parse(args)),
  'agentTape.importTapeFile': () => vscode.commands.executeCommand('agentTape.importTapeFile'),
  'agentTape.forkSession': (args) => vscode.commands.executeCommand('agentTape.forkSession', ...forkArgs.parse(args)),
  'agentTape.rerunRequest': (args) => vscode.commands.executeCommand('agentTape.rerunRequest', ...rerunArgs.parse(args)),
  'agentTape.evaluateSession': (args) => vscode.commands.executeCommand('agentTape.evaluateSession', ...evaluateArgs.parse(args)),
  // Compares sessions of the workspace tape: a tape file's editor shows another tape.
  'agentTape.compareSessions': (args, where) => {
    if (where.tapeFile !== undefined) throw new Error('sessions are compared on the workspace tape only, not a tape file opened in an editor');
    return vscode.commands.executeCommand('agentTape.compareSessions', ...compareArgs.parse(args));
  },
  'agentTape.openCheckpointDiff': (args, where) => {
    workspaceTapeOnly(where);
    return vscode.commands.executeCommand('agentTape.openCheckpointDiff', ...checkpointDiffArgs.parse(args));
  },
  'agentTape.restoreFiles': (args, where) => {
    workspaceTapeOnly(where);
    return vscode.commands.executeCommand('agentTape.restoreFiles', ...restoreArgs.parse(args));
  },
  // The replay reads the tape the page shows: a tape file's editor replays that file.
  'agentTape.replaySession': (args, where) =>
    vscode.commands.executeCommand('agentTape.replaySession', { sessionId: replayArgs.parse(args)[0], tapeFile: where.tapeFile }),
};

/** Where the page that asks is: the tape file a tape editor shows; none for the workspace tape. */
export interface CommandSource {
  tapeFile?: string;
}

/** Runs a command the page asked for, if it is one it may run. */
export async function runInspectorCommand(name: string, args: readonly (string | number)[], where: CommandSource = {}): Promise<void> {
  const run = Object.hasOwn(WHITELIST, name) ? WHITELIST[name] : undefined;
  if (run === undefined) throw new Error(`the inspector may not run the command ${JSON.stringify(name)}`);
  await run(args, where);
}
