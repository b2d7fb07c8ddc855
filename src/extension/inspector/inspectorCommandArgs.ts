import * as z from 'zod/mini';

/** The session a command from the inspector acts on (the one it shows); none means the current one. */
const sessionArgs = z.union([z.tuple([]), z.tuple([z.string()])]);
/** "Fork from here": the session shown and the entry (a position of its view). */
const forkArgs = z.tuple([z.string(), z.number()]);
const replayArgs = z.tuple([z.string()]);
/** "Re-run…" on a request of the session shown; "Evaluate with a model…" on the session shown. */
const rerunArgs = z.tuple([z.string(), z.number()]);
const evaluateArgs = z.tuple([z.string()]);
/** "Export as OpenTelemetry…": the session shown, named (a tape file's page has no current session). */
const exportOtlpArgs = z.tuple([z.string().check(z.minLength(1))]);
/** "Compare" on a relative in the Lineage view: the session shown and the other one. */
const compareArgs = z.tuple([z.string(), z.string()]);
/** A file changed between two checkpoints: the session shown, the two checkpoint ids and the workspace path; "Restore Files to Here": the session and the entry. */
const checkpointDiffArgs = z.tuple([z.string(), z.string(), z.string(), z.string()]);
const restoreArgs = z.tuple([z.string(), z.number()]);

/** Where the page that asks is: the tape file a tape editor shows; none for the workspace tape. */
export interface CommandSource {
  tapeFile?: string;
}

/** Checkpoints are the workspace tape's: a tape file's editor shows another tape, whose files are not this workspace's. */
const workspaceTapeOnly = (where: CommandSource): void => {
  if (where.tapeFile !== undefined) throw new Error('file checkpoints are shown and restored for the workspace tape only, not a tape file opened in an editor');
};

/**
 * The Agent Tape commands the inspector page may run, each mapping the page's arguments onto the
 * command's own. Only these: the page shows tape text, and whatever reaches it must not be able
 * to run an arbitrary command of VS Code or another extension.
 */
const WHITELIST: Record<string, (args: readonly (string | number)[], where: CommandSource) => unknown[]> = {
  'agentTape.exportSession': (args) => [undefined, ...sessionArgs.parse(args)],
  // The tape the page shows: a tape file's editor exports a session of that file.
  'agentTape.exportSessionOtlp': (args, where) => [undefined, ...exportOtlpArgs.parse(args), where.tapeFile],
  'agentTape.compactSession': (args) => sessionArgs.parse(args),
  'agentTape.handoff': (args) => [undefined, undefined, ...sessionArgs.parse(args)],
  'agentTape.importTapeFile': () => [],
  'agentTape.forkSession': (args) => forkArgs.parse(args),
  'agentTape.rerunRequest': (args) => rerunArgs.parse(args),
  'agentTape.evaluateSession': (args) => evaluateArgs.parse(args),
  // Compares sessions of the workspace tape: a tape file's editor shows another tape.
  'agentTape.compareSessions': (args, where) => {
    if (where.tapeFile !== undefined) throw new Error('sessions are compared on the workspace tape only, not a tape file opened in an editor');
    return compareArgs.parse(args);
  },
  'agentTape.openCheckpointDiff': (args, where) => {
    workspaceTapeOnly(where);
    return checkpointDiffArgs.parse(args);
  },
  'agentTape.restoreFiles': (args, where) => {
    workspaceTapeOnly(where);
    return restoreArgs.parse(args);
  },
  // The replay reads the tape the page shows: a tape file's editor replays that file.
  'agentTape.replaySession': (args, where) => [{ sessionId: replayArgs.parse(args)[0], tapeFile: where.tapeFile }],
};

/** The arguments to run the page's command `name` with; throws for a command the page may not run or arguments it may not give. */
export function inspectorCommandArgs(name: string, args: readonly (string | number)[], where: CommandSource = {}): unknown[] {
  const map = Object.hasOwn(WHITELIST, name) ? WHITELIST[name] : undefined;
  if (map === undefined) throw new Error(`the inspector may not run the command ${JSON.stringify(name)}`);
  return map(args, where);
}
