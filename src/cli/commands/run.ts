import { statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DEFAULT_MAX_ROUNDS } from '../../agent/agentSession';
import { OpenTape } from '../../agent/session/openTape';
import { readAgentsMd } from '../../agent/context/agentsMd';
import type { SessionEvent } from '../../agent/turnEvent';
import { withheldValues } from '../../agent/workspace/commandEnv';
import { NodeWorkspace } from '../../agent/workspace/nodeWorkspace';
import { checkpointStoreOf, tapeFileExclusions, WorkspaceCheckpoints } from '../../agent/checkpoints/workspaceCheckpoints';
import { LiveOtlpExporter } from '../../otel/liveExporter';
import { otlpEndpointFromEnv } from '../../otel/otlpEndpoint';
import { secretMask } from '../../otel/secretMask';
import { TapeStore } from '../../store/tapeStore';
import { errorMessage } from '../../tape/errorMessage';
import { oneLine } from '../../tape/oneLine';
import type { TurnOutcomeKind } from '../../tape/turnEntries';
import { int, parseArgs, required, str, UsageError, type Parsed } from '../args';
import { apiKeyVarOf, EXIT_INTERRUPTED, MODEL_FLAGS, modelFromFlags, withInterrupt } from '../modelFlags';
import type { Io } from '../output';
import { requireSqliteTape } from './session';
import { warnNearlyFull } from '../output';

const TOOL_LINE_MAX = 200;

const EXIT_OF: Record<TurnOutcomeKind, number> = { answer: 0, provider_error: 1, round_limit: 1, cancelled: EXIT_INTERRUPTED };

/** People read the answer on stdout and the agent's activity on stderr, so `> answer.txt` keeps only the answer. */
function humanPrinter(io: Io): (event: SessionEvent) => void {
  let messageId: string | undefined;
  let atLineStart = true;
  const endLine = () => {
    if (!atLineStart) io.out('\n');
    atLineStart = true;
  };
  return (event) => {
    switch (event.type) {
      case 'text':
        // Each request's answer on its own line, not glued to the one before its tool calls.
        if (event.messageId !== messageId) endLine();
        messageId = event.messageId;
        if (event.delta !== '') {
          io.out(event.delta);
          atLineStart = event.delta.endsWith('\n');
        }
        break;
      case 'tool_call':
        endLine();
        io.err(`[tool] ${event.name} ${oneLine(typeof event.input === 'string' ? event.input : JSON.stringify(event.input), TOOL_LINE_MAX)}\n`);
        break;
      case 'tool_result':
        io.err(
          `[tool] ${event.name} ${event.status}${event.truncated ? ' (truncated)' : ''}${event.status === 'error' ? `: ${oneLine(event.output, TOOL_LINE_MAX)}` : ''}\n`,
        );
        break;
      case 'subagent':
        endLine();
        io.err(`[subagent] ${event.line}${event.outcome !== undefined ? ` (session ${event.childSessionId})` : ''}\n`);
        break;
      case 'compaction':
        endLine();
        io.err(`[compacted] the context now starts from ${event.anchorName}\n`);
        break;
      case 'error':
        endLine();
        io.err(event.kind === 'compaction' ? `agent-tape: ${event.message}; going on with budget trimming\n` : `agent-tape: ${event.message}\n`);
        break;
      case 'checkpoint':
        if (event.reason === 'turn_end' && event.files > 0) {
          endLine();
          io.err(
            `[checkpoint] ${event.files} file${event.files === 1 ? '' : 's'} changed (+${event.added} -${event.removed}); agent-tape restore can take them back\n`,
          );
        }
        break;
      case 'checkpoints_off':
        endLine();
        io.err(`agent-tape: ${event.message}; the turn goes on without them\n`);
        break;
      case 'turn_end':
        endLine();
        if (event.outcome === 'round_limit') io.err(`agent-tape: the turn reached the round limit (${event.rounds} requests) without an answer\n`);
        if (event.outcome === 'cancelled') io.err('agent-tape: cancelled; the partial turn is on the tape\n');
        break;
    }
  };
}

export function workspaceOf(p: Parsed): string {
  const dir = path.resolve(str(p, 'workspace') ?? process.cwd());
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--workspace ${dir} is not a directory`);
  return dir;
}

/** `--pass-env A,B`: secret-looking variables the user lets commands see. */
export function passEnvOf(p: Parsed): string[] {
  const names = (str(p, 'pass-env') ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  const bad = names.find((n) => !/^[^=\0]+$/.test(n));
  if (bad !== undefined) throw new UsageError(`--pass-env: ${JSON.stringify(bad)} is not an environment variable name`);
  return names;
}

/** One turn of the agent in a session of the tape (created if new); the exit code says how it ended. */
export async function runCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, {
    valued: [...MODEL_FLAGS, 'workspace', 'max-rounds', 'pass-env'],
    switches: ['allow-edits', 'allow-commands', 'no-checkpoints', 'json'],
    positional: ['tape.sqlite', 'prompt...'],
    rest: true,
  });
  const [file, ...words] = p.positional;
  const sessionId = required(p, 'session');
  const prompt = words.join(' ');
  if (prompt.trim() === '') throw new UsageError('the prompt is empty');
  const maxRounds = int(p, 'max-rounds') ?? DEFAULT_MAX_ROUNDS;
  if (maxRounds < 1) throw new UsageError('--max-rounds must be at least 1');
  const model = modelFromFlags(p);
  const workspace = workspaceOf(p);
  const commandEnv = { withhold: [apiKeyVarOf(p)], pass: passEnvOf(p) };
  requireSqliteTape('run', file);
  const otel = otelOf(process.env);
  const agentsMd = await readAgentsMd(workspace);

  const permissions = { edits: p.flags.has('allow-edits'), commands: p.flags.has('allow-commands') };
  // Only a turn that may change files needs them; the store goes beside the tape, out of every checkpoint.
  const storeDir = checkpointStoreOf(path.resolve(file));
  const checkpoints =
    (permissions.edits || permissions.commands) && !p.flags.has('no-checkpoints')
      ? new WorkspaceCheckpoints(storeDir, workspace, { exclude: tapeFileExclusions(file) })
      : undefined;

  const store = await TapeStore.open(file, { onNearlyFull: warnNearlyFull(io) });
  const live =
    otel === null
      ? null
      : new LiveOtlpExporter(
          { store, onDidAppend: (l) => store.onDidAppend(l) },
          { ...otel, tape: file, mask: secretMask(withheldValues(process.env, { withhold: commandEnv.withhold })), log: (_level, line) => io.err(`${line}\n`) },
        );
  try {
    const session = new OpenTape(store).session(sessionId);
    const setup = {
      checkpoints,
      model,
      workspace: new NodeWorkspace(workspace, { commandEnv }),
      permissions,
      environment: {
        os: `${os.type()} ${os.release()}`,
        shell: process.platform === 'win32' ? 'cmd.exe' : '/bin/sh',
        workspaceRoot: workspace,
        date: new Date().toISOString().slice(0, 10),
      },
      agentsMd,
      maxRounds,
    };
    const onEvent = p.flags.has('json') ? (event: SessionEvent) => io.data(`${JSON.stringify(event)}\n`) : humanPrinter(io);
    const outcome = await withInterrupt((signal) => session.runTurn(prompt, setup, { signal, onEvent }));
    return EXIT_OF[outcome.outcome];
  } finally {
    if (live !== null) await closeLive(live, io);
    await store.close();
  }
}

/** Live export from the standard OTEL_EXPORTER_OTLP_* variables; a bad one is a usage error before the turn starts. */
function otelOf(env: NodeJS.ProcessEnv): ReturnType<typeof otlpEndpointFromEnv> {
  try {
    return otlpEndpointFromEnv(env);
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
}

/** What the turn's spans came to: the turn is over, so its spans go now, within a few seconds. */
async function closeLive(live: LiveOtlpExporter, io: Io): Promise<void> {
  await live.dispose(LIVE_CLOSE_MS);
  const s = live.status();
  const failed = s.droppedSpans > 0 ? `, ${s.droppedSpans} not sent (${s.lastError ?? 'closing'})` : '';
  io.err(`OpenTelemetry: ${s.sentSpans} spans sent in ${s.sentRequests} request${s.sentRequests === 1 ? '' : 's'}${failed}\n`);
}

/** How long `run` waits at its end for the collector to take the turn's spans. */
const LIVE_CLOSE_MS = 5000;
