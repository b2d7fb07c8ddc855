import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import { OpenTape } from '../../../src/agent/session/openTape';
import { ScriptedModel } from '../../../src/agent/model/scriptedModel';
import { exportJsonl } from '../../../src/store/tapeFile';
import { TapeStore } from '../../../src/store/tapeStore';

/**
 * The committed sample tape `test/fixtures/tapes/inspector-two-requests.tape.jsonl`, written by the
 * real agent loop against a scripted model: two turns of one request each (maxRounds 1), both
 * calling tools, the first leaving a handoff anchor, so the second request starts from it. The
 * text carries markup the webview must show as text. Regenerate with
 * `node out-insp/test/unit/inspector/fixtureTape.js <dst>`; the committed file is what tests read.
 */
export const FIXTURE = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'tapes', 'inspector-two-requests.tape.jsonl');
export const FIXTURE_SESSION = 'inspector-sample';

export const HOSTILE_USER_TEXT = 'Read notes.md and tell me what it says <script>alert(1)</script>';
export const HOSTILE_ANSWER = ['Looking at the notes ', 'now: <img src=x onerror=alert(1)> ', 'and a [link](javascript:alert(1)).'];

export async function writeFixture(dst: string): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-inspector-fixture-'));
  try {
    const ws = path.join(dir, 'ws');
    fs.mkdirSync(ws);
    fs.writeFileSync(path.join(ws, 'notes.md'), 'Build with esbuild. See [docs](javascript:alert(1)).\n');
    const file = path.join(dir, 'sample.tape.sqlite');
    const store = await TapeStore.open(file);
    // A clock that moves 300 ms a reading: every streamed chunk is due as a pending revision.
    let clock = 1_767_225_600_000;
    const model = new ScriptedModel([
      [
        ...HOSTILE_ANSWER.map((text) => ({ text })),
        { toolCall: { id: 'call-read', name: 'read_file', arguments: { path: 'notes.md' } } },
        {
          toolCall: {
            id: 'call-handoff',
            name: 'tape_handoff',
            arguments: { name: 'notes-read', summary: 'The user asked about notes.md; it says to build with esbuild.' },
          },
        },
        { usage: { inputTokens: 900, outputTokens: 60, cachedInputTokens: 0 } },
      ],
      [
        { text: 'Listing the workspace.' },
        { toolCall: { id: 'call-list', name: 'list_dir', arguments: { path: '.' } } },
        { usage: { inputTokens: 700, outputTokens: 20, cachedInputTokens: 512 } },
      ],
    ]);
    const session = new AgentSession({
      tape: new OpenTape(store),
      sessionId: FIXTURE_SESSION,
      model,
      workspace: ws,
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-01-01' },
      maxRounds: 1,
      now: () => (clock += 300),
    });
    const signal = new AbortController().signal;
    await session.runTurn(HOSTILE_USER_TEXT, { signal });
    await session.runTurn('Now list the workspace files', { signal });
    await store.close();
    await exportJsonl(file, dst);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  writeFixture(process.argv[2] ?? FIXTURE).catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
