import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../src/agent/agentSession';
import { OpenTape } from '../../src/agent/session/openTape';
import { ScriptedModel, type ScriptedStep } from '../../src/agent/model/scriptedModel';
import { ingestFile } from '../../src/ingest/ingest';
import { discardFork, forkSession, mergeFork } from '../../src/store/forks';
import { TapeStore } from '../../src/store/tapeStore';

/**
 * The sample tape of `demo/samples/`, recorded by the agent core itself (AgentSession, its tools,
 * compaction, forks, subagents, ingest) against a scripted model in a temporary copy of the demo
 * workspace, so the sample never drifts from the format. `scripts/make-demo-tapes.mjs` runs it.
 */

export const DEMO_DIR = path.join(__dirname, '..', '..', '..', 'demo');
export const SAMPLE_NAME = 'coding-session.tape.sqlite';
export const CODING_SESSION = 'demo-coding';
export const MERGED_FORK_ID = 'fallback-name';
export const DISCARDED_FORK_ID = 'shout';
/** The Claude Code transcript the sample ingests, committed beside the sample. */
export const CLAUDE_TRANSCRIPT = path.join('samples', 'claude-code', '7d1e5a40-0000-4000-8000-000000000001.jsonl');
export const CLAUDE_SESSION = 'claude-code:7d1e5a40-0000-4000-8000-000000000001';

// Fixed facts and a fixed clock, so regenerating changes only what the format makes random (turn and message ids).
const ENVIRONMENT = { os: 'linux', shell: '/bin/sh', workspaceRoot: '/home/me/demo', date: '2026-01-01' };
const START = Date.UTC(2026, 0, 1, 9, 0, 0);

const OLD_LINE = 'return `Hello, ${name}!`;';
const NEW_LINE = "return `Hello, ${name.trim() === '' ? 'world' : name}!`;";
const SUMMARY = JSON.stringify({
  goal: 'greet() should greet the world when the name is blank.',
  decisions: ['A blank name (empty or only spaces) falls back to "world".'],
  filesTouched: ['src/greet.ts: the fallback in greet()'],
  openWork: ['Document the behaviour in README.md'],
});

const call = (id: string, name: string, args: Record<string, unknown>): ScriptedStep => ({ toolCall: { id, name, arguments: args } });
const usage = (inputTokens: number, outputTokens: number, cachedInputTokens = 0): ScriptedStep => ({ usage: { inputTokens, outputTokens, cachedInputTokens } });

/** Copies the demo workspace's own files (not the samples) to a fresh temporary folder. */
function workspaceCopy(demoDir: string, into: string): string {
  const ws = path.join(into, 'demo');
  fs.cpSync(demoDir, ws, { recursive: true, filter: (src) => path.relative(demoDir, src).split(path.sep)[0] !== 'samples' });
  return ws;
}

/**
 * Records the sample into `outDir/coding-session.tape.sqlite` (replacing one that is there) and
 * returns its path. The sessions:
 * - `demo-coding`: a turn with read_file, apply_edit and run_command; a turn that starts with an
 *   auto-compaction; a turn whose model leaves a handoff (tape_handoff); a turn with a subagent;
 * - its forks `demo-coding::fork::fallback-name` (merged) and `demo-coding::fork::shout` (discarded);
 * - the subagent `demo-coding::subagent::…`;
 * - `claude-code:7d1e…`: a Claude Code transcript ingested.
 */
export async function writeDemoTape(outDir: string, demoDir = DEMO_DIR): Promise<string> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-demo-'));
  try {
    const ws = workspaceCopy(demoDir, tmp);
    const recorded = path.join(tmp, SAMPLE_NAME);
    const store = await TapeStore.open(recorded);
    let clock = START;
    const signal = new AbortController().signal;
    const session = (sessionId: string, responses: ScriptedStep[][], compactionShare?: number) =>
      new AgentSession({
        tape: new OpenTape(store),
        sessionId,
        model: new ScriptedModel(responses, { id: 'demo-model', vendor: 'scripted', contextWindow: 32_768, maxOutput: 4_096 }),
        workspace: ws,
        permissions: { edits: true, commands: true },
        environment: ENVIRONMENT,
        compactionShare,
        now: () => (clock += 700),
      });
    const turn = async (sessionId: string, text: string, responses: ScriptedStep[][], compactionShare?: number): Promise<void> => {
      const outcome = await session(sessionId, responses, compactionShare).runTurn(text, { signal });
      if (outcome.outcome !== 'answer') throw new Error(`demo turn "${text}" ended with ${outcome.outcome}`);
    };
    try {
      await turn(CODING_SESSION, 'greet("") says "Hello, !". Make a blank name greet the world, and check it.', [
        [{ text: 'Let me read the function first.' }, call('read-1', 'read_file', { path: 'src/greet.ts' }), usage(1850, 24)],
        [
          { text: 'It interpolates the name as it is. I will fall back to "world" for a blank name.' },
          call('edit-1', 'apply_edit', { path: 'src/greet.ts', oldText: OLD_LINE, newText: NEW_LINE }),
          usage(1990, 70, 1792),
        ],
        [call('cmd-1', 'run_command', { command: 'grep -n "world" src/greet.ts' }), usage(2110, 20, 1920)],
        [{ text: 'Done: `greet("")` and `greet("  ")` now return "Hello, world!", other names are unchanged.' }, usage(2180, 30, 2048)],
      ]);
      // A share this low makes the next request pass it: the turn compacts first (its answer is the summary), then answers from it.
      await turn(
        CODING_SESSION,
        'Now say in README.md what a blank name does.',
        [
          [{ text: SUMMARY }, usage(1400, 90)],
          [
            { text: 'I will add a line under the title.' },
            call('edit-2', 'apply_edit', {
              path: 'README.md',
              oldText: '# Agent Tape demo workspace\n',
              newText: '# Agent Tape demo workspace\n\n`greet()` greets the world when the name is blank.\n',
            }),
            usage(900, 60),
          ],
          [{ text: 'README.md now says it.' }, usage(1000, 12, 896)],
        ],
        0.05,
      );
      await turn(CODING_SESSION, 'Leave a handoff for whoever writes the tests.', [
        [
          call('handoff-1', 'tape_handoff', {
            name: 'tests-next',
            summary: 'greet() falls back to "world" for a blank name; README.md says so. Next: unit tests for greet.',
            state: { files: ['src/greet.ts', 'README.md'] },
          }),
          usage(1100, 50, 896),
        ],
        [{ text: 'Handoff `tests-next` left on the tape; the next request starts from it.' }, usage(600, 20)],
      ]);
      // The parent's requests and the subagent's share one script: parent, child, child, parent.
      await turn(CODING_SESSION, 'Ask a subagent which files export greet.', [
        [
          call('sub-1', 'run_subagent', { task: 'List the files under src/ and say which one exports greet.', tools: ['list_dir', 'search_text'] }),
          usage(700, 40),
        ],
        [call('child-ls', 'list_dir', { path: 'src' }), usage(400, 15)],
        [{ text: 'src/greet.ts is the only file, and it exports greet.' }, usage(450, 14, 384)],
        [{ text: 'The subagent found one file: `src/greet.ts` exports `greet`.' }, usage(760, 18, 640)],
      ]);

      const merged = await forkSession(store, CODING_SESSION, { forkId: MERGED_FORK_ID });
      await turn(merged.forkSessionId, 'Could "world" be a named constant?', [
        [{ text: 'Yes: `const FALLBACK_NAME = "world"` would name it. I would keep the edit small and leave it inline for now.' }, usage(800, 30)],
      ]);
      await mergeFork(store, merged.forkSessionId);
      const discarded = await forkSession(store, CODING_SESSION, { forkId: DISCARDED_FORK_ID });
      await turn(discarded.forkSessionId, 'What if greet shouted?', [
        [{ text: 'It would return "HELLO, WORLD!"; that changes every caller, so I would not.' }, usage(800, 25)],
      ]);
      await discardFork(store, discarded.forkSessionId, 'shouting changes every caller');

      await ingestFile(store, path.join(demoDir, CLAUDE_TRANSCRIPT), 'claude-code');
      // Everything into the snapshot, so the sample is one file: a journal left beside it would only repeat its last record.
      await store.checkpoint();
    } finally {
      await store.close();
    }
    fs.mkdirSync(outDir, { recursive: true });
    const out = path.join(outDir, SAMPLE_NAME);
    for (const suffix of ['', '.tapelog']) fs.rmSync(out + suffix, { force: true });
    fs.copyFileSync(recorded, out);
    return out;
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}
