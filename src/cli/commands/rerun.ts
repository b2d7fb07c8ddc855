import { defaultTools } from '../../agent/agentSession';
import { OpenTape } from '../../agent/session/openTape';
import { NodeWorkspace } from '../../agent/workspace/nodeWorkspace';
import { rebuildRequest } from '../../rerun/rebuildRequest';
import { rerunRequest, type ContinueOptions, type RerunResult } from '../../rerun/rerun';
import type { Variation } from '../../rerun/variation';
import { describeDifference } from '../../rerun/verify';
import { TapeStore } from '../../store/tapeStore';
import { oneLine } from '../../tape/oneLine';
import { int, parseArgs, required, str, UsageError, type Parsed } from '../args';
import { apiKeyVarOf, EXIT_INTERRUPTED, MODEL_FLAGS, modelFromFlags, withInterrupt } from '../modelFlags';
import { type Io, json, warnNearlyFull } from '../output';
import { systemPromptFlag } from '../systemPromptFlag';
import { passEnvOf, workspaceOf } from './run';
import { requireSqliteTape } from './session';

const LINE_MAX = 200;

/** The variation the flags name; the system prompt file is read here, before the tape is opened. */
function variationOf(p: Parsed): Variation {
  const variation: Variation = {};
  const systemPrompt = systemPromptFlag(p);
  if (systemPrompt !== undefined) variation.systemPrompt = systemPrompt;
  const drop = p.lists.get('drop') ?? [];
  if (drop.length > 0)
    variation.drop = drop.map((d) => {
      if (!/^\d+$/.test(d) || Number(d) < 1 || !Number.isSafeInteger(Number(d))) throw new UsageError(`--drop must be an entry id, got ${JSON.stringify(d)}`);
      return Number(d);
    });
  return variation;
}

/** `--continue [--live --allow-edits --allow-commands --workspace DIR]`: how the fork goes on, if it does. */
function continueOf(p: Parsed): ContinueOptions | undefined {
  const liveOnly = ['allow-edits', 'allow-commands', 'workspace', 'pass-env'].filter((f) => p.flags.has(f));
  if (!p.flags.has('continue')) {
    const given = ['live', 'max-rounds', ...liveOnly].find((f) => p.flags.has(f));
    if (given !== undefined) throw new UsageError(`--${given} needs --continue`);
    return undefined;
  }
  const maxRounds = int(p, 'max-rounds');
  if (maxRounds !== undefined && maxRounds < 1) throw new UsageError('--max-rounds must be at least 1');
  if (!p.flags.has('live')) {
    if (liveOnly.length > 0) throw new UsageError(`--${liveOnly[0]} needs --live: without it no tool runs`);
    return { maxRounds };
  }
  const workspace = new NodeWorkspace(workspaceOf(p), { commandEnv: { withhold: [apiKeyVarOf(p)], pass: passEnvOf(p) } });
  return {
    maxRounds,
    live: { tools: defaultTools(), context: { workspace, permissions: { edits: p.flags.has('allow-edits'), commands: p.flags.has('allow-commands') } } },
  };
}

const EXIT_OF: Record<RerunResult['outcome'], number> = {
  recorded: 0,
  answer: 0,
  diverged: 0,
  round_limit: 0,
  provider_error: 1,
  cancelled: EXIT_INTERRUPTED,
};

/**
 * `agent-tape rerun`: request ENTRY of session S sent again (optionally varied) and recorded in a
 * fork of S; with `--continue` the fork goes on, answering identical calls from the tape. Bad
 * input is found on a read-only open, so it leaves the tape file exactly as it was.
 */
export async function rerunCommand(args: string[], io: Io): Promise<number> {
  const p = parseArgs(args, {
    valued: [...MODEL_FLAGS, 'request', 'system-prompt', 'fork-id', 'max-rounds', 'workspace', 'pass-env'],
    repeated: ['drop'],
    switches: ['continue', 'live', 'allow-edits', 'allow-commands', 'json'],
    positional: ['tape.sqlite'],
  });
  const [file] = p.positional;
  const sessionId = required(p, 'session');
  const entryId = int(p, 'request');
  if (entryId === undefined) throw new UsageError('--request is required');
  const variation = variationOf(p);
  const model = modelFromFlags(p);
  const continued = continueOf(p);
  requireSqliteTape('rerun', file);

  const readOnly = await TapeStore.open(file, { readOnly: true });
  try {
    rebuildRequest(new OpenTape(readOnly), sessionId, entryId, variation);
  } finally {
    await readOnly.close();
  }
  const store = await TapeStore.open(file, { onNearlyFull: warnNearlyFull(io) });
  try {
    const tape = new OpenTape(store);
    const result = await withInterrupt((signal) =>
      rerunRequest(tape, model, { sessionId, entryId, variation }, { signal, forkId: str(p, 'fork-id'), continue: continued }),
    );
    if (p.flags.has('json')) json(io, jsonOf(result));
    else print(io, result);
    return EXIT_OF[result.outcome];
  } finally {
    await store.close();
  }
}

function jsonOf(r: RerunResult) {
  const [first] = r.steps;
  return {
    forkSessionId: r.forkSessionId,
    sourceSessionId: r.sourceSessionId,
    sourceEntryId: r.sourceEntryId,
    promptHashMatches: r.rebuilt.promptHashMatches,
    toolsHashMatches: r.rebuilt.toolsHashMatches,
    difference: r.rebuilt.difference,
    notes: r.rebuilt.notes,
    status: first.response.status,
    text: first.response.text,
    toolCalls: first.calls.map(({ toolCallId, name, input }) => ({ id: toolCallId, name, arguments: input })),
    usage: first.response.usage,
    latencyMs: first.response.latencyMs,
    error: first.response.error,
    outcome: r.outcome,
    divergence: r.divergence,
    steps: r.steps.map((s) => ({
      requestSeq: s.requestSeq,
      viewEntryId: s.viewEntryId,
      status: s.response.status,
      text: s.response.text,
      toolCalls: s.calls.map(({ toolCallId, name, input, result }) => ({ id: toolCallId, name, arguments: input, result })),
      usage: s.response.usage,
      latencyMs: s.response.latencyMs,
    })),
  };
}

const args = (input: unknown): string => oneLine(typeof input === 'string' ? input : JSON.stringify(input), LINE_MAX);

/** The answer on stdout, as `run` prints it, with the fork, the hash check and each call's fate; failures on stderr. */
function print(io: Io, r: RerunResult): void {
  const { rebuilt } = r;
  io.out(`fork: ${r.forkSessionId}\n`);
  io.out(
    rebuilt.promptHashMatches
      ? 'prompt hash: matches the recorded request\n'
      : `prompt hash: differs from the recorded request${rebuilt.difference === null ? '' : ` (${describeDifference(rebuilt.difference)})`}\n`,
  );
  for (const note of rebuilt.notes) io.out(`note: ${note}\n`);
  for (const step of r.steps) {
    io.out(`request ${step.requestSeq} (entry ${step.viewEntryId}):\n`);
    if (step.response.text !== '') io.out(`${step.response.text}${step.response.text.endsWith('\n') ? '' : '\n'}`);
    for (const c of step.calls) io.out(`[tool] ${c.name} ${args(c.input)} (${c.result.replace('_', ' ')})\n`);
    if (step.response.error !== null) io.err(`agent-tape: ${step.response.error.message}\n`);
  }
  const d = r.divergence;
  if (d !== null)
    io.out(
      `diverged at request ${d.requestSeq}, call ${d.index + 1}: ${d.call === null ? 'no call' : `${d.call.name} ${args(d.call.input)}`}; ` +
        `recorded: ${d.recorded === null ? 'no call' : `${d.recorded.name} ${args(d.recorded.input)}`}\n`,
    );
  io.out(`outcome: ${r.outcome}\n`);
}
