import * as assert from 'assert';
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { promisify } from 'util';
import { TapeStore } from '../../../src/store/tapeStore';
import { agentRequest, askRequest, initialEntry, logLines, requestLines, sessionJson, VSC_SESSION, workspaceStorage } from '../ingest/vscodeChatFixtures';
import { buildCli, CLI, cli } from './build';

const run = promisify(execFile);

describe('agent-tape ingest of VS Code chat sessions', function () {
  this.timeout(60_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-vscode-'));
    tape = path.join(dir, 'chats.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const prompts = async (sessionId: string): Promise<unknown[]> => {
    const store = await TapeStore.open(tape, { readOnly: true });
    try {
      return store
        .entries(sessionId)
        .filter((e) => e.name === 'message/user')
        .map((e) => e.payload.content);
    } finally {
      await store.close();
    }
  };

  it('the built CLI ingests a session file named anywhere with --from vscode-chat, and the same session again appends nothing', async () => {
    await buildCli();
    const file = path.join(dir, 'exported.json');
    fs.writeFileSync(file, JSON.stringify(sessionJson([agentRequest(), askRequest()]), undefined, 2));
    const first = await run(process.execPath, [CLI, 'ingest', file, tape, '--from', 'vscode-chat', '--json']);
    const report = JSON.parse(first.stdout) as { appended: number; sessions: number; reports: { format: string; skipped: Record<string, number> }[] };
    assert.deepStrictEqual([report.sessions, report.reports.map((r) => r.format)], [1, ['vscode-chat']]);
    assert.ok(report.appended > 0);
    assert.strictEqual(report.reports[0].skipped['response/sparkleGlitter'], 1, 'an unknown part kind is counted');
    assert.deepStrictEqual(await prompts(`vscode-chat:${VSC_SESSION}`), ['Fix the bug in #file:main.ts', 'Thanks, and the docs?']);
    const again = await run(process.execPath, [CLI, 'ingest', file, tape, '--from', 'vscode-chat', '--json']);
    assert.strictEqual((JSON.parse(again.stdout) as { appended: number }).appended, 0);
    // Without --from, a .json at a path that tells nothing is known by its content.
    const copy = path.join(dir, 'copy.json');
    fs.copyFileSync(file, copy);
    const detected = await run(process.execPath, [CLI, 'ingest', copy, tape, '--json']);
    const d = JSON.parse(detected.stdout) as { appended: number; reports: { format: string }[] };
    assert.deepStrictEqual([d.reports[0].format, d.appended], ['vscode-chat', 0]);
  });

  it("knows a workspace storage's chatSessions/ files by their path (a flat file and a log), and names a damaged one while the others go in", async () => {
    const storage = workspaceStorage(dir);
    const sessions = path.join(storage, 'chatSessions');
    fs.writeFileSync(path.join(sessions, 'flat-1.json'), JSON.stringify(sessionJson([askRequest()], { sessionId: 'flat-1' })));
    const b = requestLines(askRequest('r-log', 'From the log?', 'Yes.'), 0);
    const log = path.join(sessions, 'log-1.jsonl');
    fs.writeFileSync(log, logLines({ ...initialEntry(), v: { ...initialEntry().v, sessionId: 'log-1' } }) + b.running + b.completing);

    const one = await cli('ingest', log, tape, '--json');
    assert.strictEqual(one.code, 0, one.err);
    assert.deepStrictEqual(
      (JSON.parse(one.out) as { reports: { format: string }[] }).reports[0].format,
      'vscode-chat',
      'a .jsonl in chatSessions/ is not taken for a Claude Code transcript',
    );

    const damaged = path.join(sessions, 'damaged.json');
    fs.writeFileSync(damaged, '{"version":3,"requests":[');
    const all = await cli('ingest', path.join(dir, 'workspaceStorage'), tape);
    assert.strictEqual(all.code, 1);
    assert.match(all.err, new RegExp(`${damaged.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not valid JSON`));
    assert.deepStrictEqual(await prompts('vscode-chat:flat-1'), ['Thanks, and the docs?']);
    assert.deepStrictEqual(await prompts('vscode-chat:log-1'), ['From the log?']);
  });
});
