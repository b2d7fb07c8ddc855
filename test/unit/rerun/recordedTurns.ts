import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import type { ModelRequest } from '../../../src/agent/model/modelPort';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { jsonlLine, parseJsonl } from '../../../src/store/jsonl';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import type { SamplingOptions } from '../../../src/tape/requestParams';

/**
 * A session the real agent records against scripted models, one turn per item (each answered by
 * its own steps), in a workspace holding notes.md. What each request handed the model is kept,
 * in order, to compare re-sent requests with.
 */
export async function recordTurns(
  dir: string,
  sessionId: string,
  turns: readonly { text: string; steps: ScriptedStep[][] }[],
  sampling?: SamplingOptions,
): Promise<{ raws: RawEntry[]; sent: ModelRequest[] }> {
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(ws, 'notes.md'), 'Build with esbuild.\n');
  const store = await TapeStore.open(path.join(dir, 'rec.tape.sqlite'));
  const sent: ModelRequest[] = [];
  try {
    for (const { text, steps } of turns) {
      const model = new ScriptedModel(steps);
      const outcome = await new AgentSession({
        tape: new OpenTape(store),
        sessionId,
        model,
        workspace: ws,
        permissions: { edits: false, commands: false },
        environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
        sampling,
      }).runTurn(text, { signal: new AbortController().signal });
      assert.strictEqual(outcome.outcome, 'answer');
      sent.push(...model.requests);
    }
    return { raws: store.rawEntries(sessionId), sent };
  } finally {
    await store.close();
  }
}

/** The recorded entries on a tape of their own, in memory. */
export const tapeOf = async (raws: readonly RawEntry[]): Promise<OpenTape> =>
  new OpenTape(await TapeStore.inMemory(parseJsonl(raws.map(jsonlLine).join(''), 'recorded.tape.jsonl')));
