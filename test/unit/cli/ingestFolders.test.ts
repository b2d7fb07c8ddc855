import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FORMAT_NAMES } from '../../../src/ingest/agents';
import { TapeStore } from '../../../src/store/tapeStore';
import { runCli } from '../../support/cliProcess';
import { CLINE_TASK, writeClineTask } from '../ingest/clineFixtures';
import { CC_SESSION, CODEX_SESSION, writeClaudeCode, writeCodex } from '../ingest/fixtures';
import { JSONL_AGENT, JSONL_SESSION, slugProject, V38_AGENT, V38_SESSION, writeJsonlSession, writeV38Session } from '../ingest/geminiFixtures';
import { OcDatabase, OcStorage, PARENT, writeSessions } from '../ingest/opencodeFixture';
import { request, SESSION as OTLP_SESSION, turn } from '../ingest/otlpFixtures';
import { agentRequest, sessionJson, VSC_SESSION } from '../ingest/vscodeChatFixtures';
import { buildCli, cli, ROOT, sessionsOf } from './build';

const COPILOT_SESSION = fs.readdirSync(path.join(ROOT, 'test/fixtures/agents/copilot-cli-1.0.102/session-state'))[0];

const escaped = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A backup folder holding a copy of every agent's sessions, none where the agent keeps them and
 * each at another depth: what a user hands over from another machine or a teammate.
 */
function writeBackup(dir: string): string {
  const backup = path.join(dir, 'backup');
  const claude = path.join(backup, 'laptop', 'claude', 'my-app');
  fs.mkdirSync(claude, { recursive: true });
  writeClaudeCode(claude);
  writeCodex(path.join(backup, 'codex-rollouts'));
  const chats = path.join(backup, 'vscode', 'old chats');
  fs.mkdirSync(chats, { recursive: true });
  fs.writeFileSync(path.join(chats, `${VSC_SESSION}.json`), JSON.stringify(sessionJson([agentRequest()])));
  const home = path.join(dir, 'teammate-home');
  writeJsonlSession(home);
  writeV38Session(home);
  fs.cpSync(path.join(slugProject(home), 'chats'), path.join(backup, 'from-ana', 'gemini', 'chats copy'), { recursive: true });
  writeClineTask(path.join(backup, 'cline'));
  const storage = new OcStorage(path.join(backup, 'oc', 'storage'));
  writeSessions(storage);
  fs.cpSync(path.join(ROOT, 'test/fixtures/agents/copilot-cli-1.0.102/session-state'), path.join(backup, 'copilot', 'state'), { recursive: true });
  fs.mkdirSync(path.join(backup, 'collector'));
  fs.writeFileSync(path.join(backup, 'collector', 'traces.jsonl'), `${JSON.stringify(request(turn(true)))}\n`);
  return backup;
}

describe('agent-tape ingest of a folder holding copies of agents’ sessions', function () {
  this.timeout(120_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-folders-'));
    tape = path.join(dir, 'out', 'agents.tape.sqlite');
    fs.mkdirSync(path.dirname(tape));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds every agent’s sessions wherever the files are, without --from, and each agent’s alone with --from', async () => {
    const backup = writeBackup(dir);
    const all = await cli('ingest', backup, tape, '--json');
    assert.strictEqual(all.code, 0, all.err);
    const sessions = await sessionsOf(tape);
    for (const id of [
      `claude-code:${CC_SESSION}`,
      `claude-code:${CC_SESSION}/agent-abc`,
      `codex:${CODEX_SESSION}`,
      `vscode-chat:${VSC_SESSION}`,
      `gemini:${JSONL_SESSION}`,
      `gemini:${JSONL_SESSION}/agent-${JSONL_AGENT}`,
      `gemini:${V38_SESSION}`,
      `gemini:${V38_SESSION}/agent-${V38_AGENT}`,
      `cline:${CLINE_TASK}`,
      `opencode:${PARENT}`,
      `copilot-cli:${COPILOT_SESSION}`,
      OTLP_SESSION,
    ])
      assert.ok(sessions.includes(id), `${id} in ${sessions.join(', ')}`);
    // A Gemini subagent goes in with its session, not as one of its own.
    assert.deepStrictEqual(
      sessions.filter((s) => s.startsWith('gemini:')),
      [`gemini:${JSONL_SESSION}`, `gemini:${JSONL_SESSION}/agent-${JSONL_AGENT}`, `gemini:${V38_SESSION}`, `gemini:${V38_SESSION}/agent-${V38_AGENT}`],
    );

    for (const from of FORMAT_NAMES) {
      const one = path.join(dir, 'out', `${from}.tape.sqlite`);
      const r = await cli('ingest', backup, one, '--from', from);
      assert.strictEqual(r.code, 0, `${from}: ${r.err}`);
      // A copied task folder does not say whose it is: --from roo or kilo reads it as theirs.
      const wanted = sessions
        .filter((s) => s.startsWith(`${from === 'roo' || from === 'kilo' ? 'cline' : from}:`))
        .map((s) => s.replace(/^cline:/, `${from}:`));
      assert.deepStrictEqual(await sessionsOf(one), wanted, from);
      assert.match(r.out, new RegExp(`not a \\S.* session, passed over: `), `${from} lists what it passed over`);
    }
  });

  it('the built CLI: a folder holding no session says what it looked for, under which folder, and exits 2', async () => {
    await buildCli();
    const empty = path.join(dir, 'notes');
    fs.mkdirSync(path.join(empty, 'deep'), { recursive: true });
    fs.writeFileSync(path.join(empty, 'deep', 'history.jsonl'), '{"text":"not a transcript"}\n');
    fs.writeFileSync(path.join(empty, 'settings.json'), '{"theme":"dark"}');
    const r = await runCli(['ingest', empty, tape]);
    assert.strictEqual(r.code, 2, r.err);
    assert.match(r.out, /^0 transcripts, 0 sessions, 0 entries appended/);
    assert.match(r.out, new RegExp(`not a transcript, passed over: ${escaped(path.join(empty, 'deep', 'history.jsonl'))}`));
    assert.match(r.err, new RegExp(`^no agent sessions found under ${escaped(empty)} \\(2 files looked at\\)\\. Looked for:\n`));
    for (const shape of [
      /Claude Code: \*\.jsonl/,
      /Gemini CLI: session-<YYYY-MM-DDTHH-mm>-<id>\.json and \.jsonl/,
      /Cline, Roo Code, Kilo Code: task folders/,
      /opencode: opencode\*\.db/,
    ])
      assert.match(r.err, shape);

    // With --from, only that agent's shapes; a session of another agent is listed as passed over.
    writeCodex(empty);
    const gemini = await runCli(['ingest', empty, tape, '--from', 'gemini', '--json']);
    assert.strictEqual(gemini.code, 2, gemini.err);
    assert.match(gemini.err, /^no Gemini CLI sessions found under .*\(3 files looked at\)\. Looked for:\n {2}Gemini CLI: session-.*\n$/);
    const report = JSON.parse(gemini.out) as { notFound: { folder: string; lookedFor: string[] }[]; notTranscripts: string[] };
    assert.deepStrictEqual(
      report.notFound.map((f) => [f.folder, f.lookedFor.length]),
      [[empty, 1]],
    );
    assert.ok(report.notTranscripts.some((f) => f.includes('rollout-')));

    // Nothing of the agent asked for: the tape is not created.
    const codexOnly = path.join(dir, 'codex-only');
    writeCodex(codexOnly);
    const never = path.join(dir, 'never.tape.sqlite');
    const none = await runCli(['ingest', codexOnly, never, '--from', 'gemini']);
    assert.strictEqual(none.code, 2, none.err);
    assert.deepStrictEqual(
      fs.readdirSync(dir).filter((f) => f.startsWith('never.')),
      [],
      'a run that found nothing to ingest creates no tape',
    );
  });

  it('the built CLI: a damaged file in a copy is named with why, the others are ingested, exit 1; a folder holding none beside a good one is said too', async () => {
    await buildCli();
    const backup = writeBackup(dir);
    const chats = path.join(backup, 'from-ana', 'gemini', 'chats copy');
    const damaged = path.join(chats, 'session-2026-08-03T10-00-eeeeeeee.json');
    fs.writeFileSync(damaged, '{"sessionId": "eeeeeeee-0000-4000-8000-000000000009", "projectHash": "ab", "messages": [');
    const renamed = path.join(backup, 'vscode', 'old chats', 'broken.json');
    fs.writeFileSync(renamed, '{"version": 3, "requests": [{"requestId": ');
    const empty = path.join(dir, 'empty');
    fs.mkdirSync(empty);
    const r = await runCli(['ingest', backup, empty, tape]);
    assert.strictEqual(r.code, 1, r.err);
    assert.match(r.err, new RegExp(`could not be read, the others were ingested: ${escaped(damaged)}: is not valid JSON`));
    assert.match(r.err, new RegExp(`could not be read, the others were ingested: ${escaped(renamed)}: is not valid JSON`));
    assert.match(r.err, new RegExp(`no agent sessions found under ${escaped(empty)} \\(0 files looked at\\)`));
    const sessions = await sessionsOf(tape);
    assert.ok(
      sessions.includes(`gemini:${JSONL_SESSION}`) && sessions.includes(`vscode-chat:${VSC_SESSION}`) && sessions.includes(`opencode:${PARENT}`),
      sessions.join(', '),
    );
  });

  it('ingests a copy, elsewhere, of a chats folder Gemini CLI 0.61 recorded: each session with its subagent, its prompts and calls', async () => {
    const copy = path.join(dir, 'backup', 'from-ana', 'gemini');
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'agents', 'gemini-cli-0.61', 'chats'), copy, { recursive: true });
    const r = await cli('ingest', path.join(dir, 'backup'), tape);
    assert.strictEqual(r.code, 0, r.err);
    const main = 'gemini:c7373c83-5587-495e-a21a-ca9ff587418c';
    const child = `${main}/agent-f158fea0-0c3a-4a5a-bdba-3f06af46ef35`;
    assert.deepStrictEqual(await sessionsOf(tape), [child, main, 'gemini:a5046e1f-0c8e-4ffe-b6fe-90a4b28a4ea2'].sort());
    const store = await TapeStore.open(tape, { readOnly: true });
    try {
      const names = (id: string, name: string): unknown[] =>
        store
          .entries(id)
          .filter((e) => e.name === name)
          .map((e) => e.payload.content ?? e.payload.name ?? e.payload.toolName);
      assert.deepStrictEqual(names(main, 'message/user'), ['What does a.txt say? Ask a subagent.']);
      assert.deepStrictEqual(names(main, 'message/assistant'), ['I will ask a subagent.', 'The subagent says a.txt reads: hello from a.txt']);
      assert.strictEqual(store.entries(main).filter((e) => e.name === 'subagent/linked').length, 1);
      assert.ok(
        store.entries(child).some((e) => e.kind === 'tool_call' && JSON.stringify(e.payload).includes('read_file')),
        'the subagent read a.txt',
      );
    } finally {
      await store.close();
    }
  });

  it('finds a renamed opencode database by its first bytes, and a copied Gemini log named on its own without --from', async () => {
    const db = new OcDatabase(path.join(dir, 'opencode-backup.sqlite'));
    writeSessions(db);
    db.checkpoint();
    db.close();
    const folder = path.join(dir, 'dbs');
    fs.mkdirSync(folder);
    fs.renameSync(path.join(dir, 'opencode-backup.sqlite'), path.join(folder, 'old.sqlite'));
    const r = await cli('ingest', folder, tape, '--json');
    assert.strictEqual(r.code, 0, r.err);
    assert.deepStrictEqual(
      (JSON.parse(r.out) as { reports: { file: string; format: string }[] }).reports.map((x) => [x.file, x.format]),
      [[path.join(folder, 'old.sqlite'), 'opencode']],
    );
    const home = path.join(dir, 'home');
    const log = path.join(dir, 'exported.jsonl');
    fs.copyFileSync(writeJsonlSession(home), log);
    const one = await cli('ingest', log, tape, '--json');
    assert.strictEqual(one.code, 0, one.err);
    assert.deepStrictEqual(
      (JSON.parse(one.out) as { reports: { format: string; sessions: string[] }[] }).reports.map((x) => [x.format, x.sessions]),
      [['gemini', [`gemini:${JSONL_SESSION}`]]],
    );
  });
});
