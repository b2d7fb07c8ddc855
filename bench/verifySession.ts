// The session of the verify benchmark, which the rerun benchmark re-runs too: recorded by the
// AgentSession itself on an in-memory tape, 100 turns of 10 requests, nine of them reading a
// workspace file, in a 32k window, so auto-compactions come as they would.
import * as fs from 'fs';
import * as path from 'path';
import { AgentSession } from '../src/agent/agentSession';
import { OpenTape } from '../src/agent/session/openTape';
import type { ModelEvent, ModelPort, ModelRequest } from '../src/agent/model/modelPort';
import { TokenEstimator } from '../src/agent/model/tokenEstimator';
import { TapeStore } from '../src/store/tapeStore';
import { proseOf } from './common';

export const SESSION = 'bench';
export const TURNS = 100;
export const REQUESTS_PER_TURN = 10;
const FILES = 8;

/**
 * A model that reads a file on each request but the last of a turn, then answers; a request
 * without tools is a compaction, answered with a summary.
 */
function benchModel(): ModelPort {
  const estimator = new TokenEstimator();
  let n = 0;
  return {
    info: { id: 'bench', vendor: 'bench', contextWindow: 32_000, maxOutput: 4_000 },
    countTokens: (input) => estimator.count(input),
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      n++;
      if (request.tools.length === 0) {
        yield { type: 'text', delta: JSON.stringify({ goal: 'keep reading', decisions: [`step ${n}`], filesTouched: [], openWork: ['more'] }) };
        yield { type: 'stop', reason: 'stop' };
        return;
      }
      let input = request.messages.length - 1;
      while (input > 0 && request.messages[input].role !== 'user') input--;
      const results = request.messages.slice(input + 1).filter((m) => m.role === 'tool').length;
      yield { type: 'text', delta: proseOf(n, 200) };
      if (results < REQUESTS_PER_TURN - 1) {
        yield { type: 'tool_call', call: { id: `c${n}`, name: 'read_file', valid: true, arguments: { path: `f${n % FILES}.md` }, rawArguments: '' } };
        yield { type: 'stop', reason: 'tool_calls' };
      } else yield { type: 'stop', reason: 'stop' };
    },
  };
}

/** Records the session on a new in-memory tape (files in `dir`/ws); `recordMs` is how long the AgentSession took. */
export async function recordVerifySession(dir: string): Promise<{ store: TapeStore; tape: OpenTape; recordMs: number }> {
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(ws, `f${i}.md`), proseOf(100 + i, 3_000));
  const store = await TapeStore.inMemory();
  const tape = new OpenTape(store);
  const session = new AgentSession({
    tape,
    sessionId: SESSION,
    model: benchModel(),
    workspace: ws,
    permissions: { edits: false, commands: false },
    environment: { os: 'linux', shell: '/bin/bash', workspaceRoot: '/work', date: '2026-11-30' },
  });
  const signal = new AbortController().signal;
  const t0 = performance.now();
  for (let t = 0; t < TURNS; t++) await session.runTurn(`Turn ${t}: ${proseOf(t, 300)}`, { signal });
  return { store, tape, recordMs: performance.now() - t0 };
}
