import { promises as fs, statSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession, DEFAULT_MAX_ROUNDS, type SessionEvent } from '../../agent/agentSession';
import { OpenAiCompatibleModel } from '../../agent/model/openAiCompatible';
import type { TurnOutcomeKind } from '../../agent/turnEntries';
import { formatOf } from '../../store/tapeFile';
import { TapeStore } from '../../store/tapeStore';
import { int, parseArgs, required, str, UsageError, type Parsed } from '../args';
import type { Io } from '../output';

/** The valued flags of every command that appends to a session with a model (run, compact). */
export const MODEL_FLAGS = ['session', 'base-url', 'model', 'api-key-env', 'context-window'];

const DEFAULT_CONTEXT_WINDOW = 32_768;
const MIN_CONTEXT_WINDOW = 1_024;
const MAX_OUTPUT = 4_096;
/** What a shell reports for a process ended by SIGINT (128 + 2). */
export const EXIT_INTERRUPTED = 130;
const TOOL_LINE_MAX = 200;

/**
 * The model the flags name. The key comes from the environment variable `--api-key-env` names, so
 * it never sits in the shell history or the process list; empty is fine for local servers.
 */
export function modelFromFlags(p: Parsed, env: NodeJS.ProcessEnv = process.env): OpenAiCompatibleModel {
  const baseURL = required(p, 'base-url');
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new UsageError(`--base-url is not a URL: ${baseURL}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http or https, got ${url.protocol}`);
  const contextWindow = int(p, 'context-window') ?? DEFAULT_CONTEXT_WINDOW;
  if (contextWindow < MIN_CONTEXT_WINDOW) throw new UsageError(`--context-window must be at least ${MIN_CONTEXT_WINDOW}`);
  const model = required(p, 'model');
  const keyVar = str(p, 'api-key-env') ?? 'OPENAI_API_KEY';
  // A quarter of a small window, so the prompt keeps most of it.
  const maxOutput = Math.min(MAX_OUTPUT, Math.floor(contextWindow / 4));
  return new OpenAiCompatibleModel({ baseURL, apiKey: env[keyVar] ?? '', model, contextWindow, maxOutput });
}

/** A writable SQLite tape: the only kind a turn or a compaction can append to. */
export function requireSqliteTape(command: string, file: string): void {
  if (formatOf(file) !== 'sqlite') throw new UsageError(`${command} writes to *.tape.sqlite files, not ${file}`);
}

/**
 * Runs `fn` with a signal that SIGINT (Ctrl+C) aborts, so what was cancelled lands on the tape
 * before the caller closes it; a second Ctrl+C, once the handler is gone, ends the process at once.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    return await fn(controller.signal);
  } finally {
    process.removeListener('SIGINT', onSigint);
  }
}

const EXIT_OF: Record<TurnOutcomeKind, number> = { answer: 0, provider_error: 1, round_limit: 1, cancelled: EXIT_INTERRUPTED };

function clip(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > TOOL_LINE_MAX ? `${line.slice(0, TOOL_LINE_MAX)}…` : line;
}

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
        io.err(`[tool] ${event.name} ${clip(typeof event.input === 'string' ? event.input : JSON.stringify(event.input))}\n`);
        break;
      case 'tool_result':
        io.err(`[tool] ${event.name} ${event.status}${event.truncated ? ' (truncated)' : ''}${event.status === 'error' ? `: ${clip(event.output)}` : ''}\n`);
        break;
      case 'compaction':
        endLine();
        io.err(`[compacted] the context now starts from ${event.anchorName}\n`);
        break;
      case 'error':
        endLine();
        io.err(event.kind === 'compaction' ? `agent-tape: ${event.message}; going on with budget trimming\n` : `agent-tape: ${event.message}\n`);
        break;
      case 'turn_end':
        endLine();
        if (event.outcome === 'round_limit') io.err(`agent-tape: the turn reached the round limit (${event.rounds} requests) without an answer\n`);
        if (event.outcome === 'cancelled') io.err('agent-tape: cancelled; the partial turn is on the tape\n');
        break;
    }
  };
}

function workspaceOf(p: Parsed): string {
  const dir = path.resolve(str(p, 'workspace') ?? process.cwd());
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new UsageError(`--workspace ${dir} is not a directory`);
  return dir;
}

async function agentsMdOf(root: string): Promise<string | null> {
  try {
    return await fs.readFile(path.join(root, 'AGENTS.md'), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** One turn of the agent in a session of the tape (created if new); the exit code says how it ended. */
export async function runCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, {
    valued: [...MODEL_FLAGS, 'workspace', 'max-rounds'],
    switches: ['allow-edits', 'allow-commands', 'json'],
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
  requireSqliteTape('run', file);
  const agentsMd = await agentsMdOf(workspace);

  const store = await TapeStore.open(file);
  try {
    const session = new AgentSession({
      store,
      sessionId,
      model,
      workspace,
      permissions: { edits: p.flags.has('allow-edits'), commands: p.flags.has('allow-commands') },
      environment: {
        os: `${os.type()} ${os.release()}`,
        shell: process.platform === 'win32' ? 'cmd.exe' : '/bin/sh',
        workspaceRoot: workspace,
        date: new Date().toISOString().slice(0, 10),
      },
      agentsMd,
      maxRounds,
    });
    const onEvent = p.flags.has('json') ? (event: SessionEvent) => io.data(`${JSON.stringify(event)}\n`) : humanPrinter(io);
    const outcome = await withInterrupt((signal) => session.runTurn(prompt, { signal, onEvent }));
    return EXIT_OF[outcome.outcome];
  } finally {
    await store.close();
  }
}
