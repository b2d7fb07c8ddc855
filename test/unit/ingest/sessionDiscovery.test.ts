import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { claudeCodeProjectDir } from '../../../src/ingest/claudeCode/discovery';
import { ingestFile } from '../../../src/ingest/ingest';
import { discoverSessions, workspaceSourceOf } from '../../../src/ingest/sessionDiscovery';
import { TapeStore } from '../../../src/store/tapeStore';
import { sessionTitleOf } from '../../../src/tape/sessionTitle';

const jsonl = (records: unknown[]): string => records.map((r) => JSON.stringify(r)).join('\n') + '\n';

describe("discovering a workspace's Claude Code and Codex sessions", () => {
  let home: string;
  const workspace = '/home/me/my.app';
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-home-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  const write = (file: string, text: string, mtime: number): void => {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    fs.utimesSync(file, mtime, mtime);
  };

  it("names Claude Code's project folder the way Claude Code does", () => {
    assert.strictEqual(claudeCodeProjectDir('/h', '/home/me/my.app'), path.join('/h', '.claude', 'projects', '-home-me-my-app'));
  });

  it('lists both kinds newest first with their first prompt, and leaves out other workspaces, subagents and prompt-less heads', () => {
    const project = claudeCodeProjectDir(home, workspace);
    write(
      path.join(project, 'a1.jsonl'),
      jsonl([
        { type: 'summary', summary: 'x' },
        { type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat: meta' } },
        { type: 'user', message: { role: 'user', content: '<command-name>/clear</command-name>' } },
        { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Fix the\nlogin bug' }] } },
      ]),
      1_000,
    );
    write(path.join(project, 'a1', 'subagents', 'agent-1.jsonl'), jsonl([{ type: 'user', message: { role: 'user', content: 'sub' } }]), 4_000);
    write(path.join(project, 'empty.jsonl'), '', 500);
    const day = path.join(home, '.codex', 'sessions', '2026', '11', '30');
    write(
      path.join(day, 'rollout-2026-11-30T10-00-00-c1.jsonl'),
      jsonl([
        { type: 'session_meta', payload: { id: 'c1', cwd: workspace } },
        {
          type: 'response_item',
          payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>…</environment_context>' }] },
        },
        { type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Add a CLI flag' }] } },
      ]),
      3_000,
    );
    write(path.join(day, 'rollout-2026-11-30T11-00-00-c2.jsonl'), jsonl([{ type: 'session_meta', payload: { id: 'c2', cwd: '/elsewhere' } }]), 5_000);
    const found = discoverSessions({ workspace, home });
    assert.deepStrictEqual(
      found.map((s) => [s.format, path.basename(s.file), s.firstPrompt]),
      [
        ['codex', 'rollout-2026-11-30T10-00-00-c1.jsonl', 'Add a CLI flag'],
        ['claude-code', 'a1.jsonl', 'Fix the login bug'],
        ['claude-code', 'empty.jsonl', null],
      ],
    );
  });

  it('titles a session in the Import picker as the tape titles it once ingested: one first-prompt rule per agent', async () => {
    const claude = path.join(claudeCodeProjectDir(home, workspace), 's1.jsonl');
    write(
      claude,
      jsonl([
        { type: 'user', uuid: 'u0', sessionId: 's1', message: { role: 'user', content: '<command-name>/init</command-name>' } },
        { type: 'user', uuid: 'u1', sessionId: 's1', message: { role: 'user', content: 'Rename the config loader' } },
        {
          type: 'assistant',
          uuid: 'a1',
          sessionId: 's1',
          message: { id: 'm1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'Done.' }] },
        },
      ]),
      2_000,
    );
    const rollout = path.join(home, '.codex', 'sessions', '2026', '12', '01', 'rollout-2026-12-01T10-00-00-c9.jsonl');
    const text = (t: string) => ({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: t }] } });
    write(
      rollout,
      jsonl([
        { type: 'session_meta', payload: { id: 'c9', cwd: workspace } },
        text('# AGENTS.md instructions for /home/me/my.app\n\n<INSTRUCTIONS>\nBe terse.\n</INSTRUCTIONS>'),
        text('Add a --json flag'),
      ]),
      3_000,
    );
    const picker = new Map(discoverSessions({ workspace, home }).map((s) => [s.file, s.firstPrompt]));
    assert.deepStrictEqual([picker.get(claude), picker.get(rollout)], ['Rename the config loader', 'Add a --json flag']);
    const store = await TapeStore.inMemory();
    for (const file of [claude, rollout]) {
      const report = await ingestFile(store, file);
      assert.strictEqual(sessionTitleOf(store, report.sessions[0]), picker.get(file), file);
    }
  });

  it('finds nothing, without failing, when neither agent has been used', () => {
    assert.deepStrictEqual(discoverSessions({ workspace, home }), []);
  });
});

describe('which transcript a changed file stands for', () => {
  let home: string;
  const workspace = '/home/me/app';
  beforeEach(() => (home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-home-'))));
  afterEach(() => fs.rmSync(home, { recursive: true, force: true }));

  it("a Claude Code session file itself, a subagent file its parent's, a Codex rollout of the workspace itself, anything else none", () => {
    const project = claudeCodeProjectDir(home, workspace);
    const rollout = path.join(home, '.codex', 'sessions', '2026', '11', '30', 'rollout-x.jsonl');
    const other = path.join(home, '.codex', 'sessions', '2026', '11', '30', 'rollout-y.jsonl');
    fs.mkdirSync(path.dirname(rollout), { recursive: true });
    fs.writeFileSync(rollout, `${JSON.stringify({ type: 'session_meta', payload: { id: 'x', cwd: workspace } })}\n`);
    fs.writeFileSync(other, `${JSON.stringify({ type: 'session_meta', payload: { id: 'y', cwd: '/else' } })}\n`);
    assert.strictEqual(workspaceSourceOf(path.join(project, 's1.jsonl'), { workspace, home }), path.join(project, 's1.jsonl'));
    assert.strictEqual(workspaceSourceOf(path.join(project, 's1', 'subagents', 'agent-7.jsonl'), { workspace, home }), path.join(project, 's1.jsonl'));
    assert.strictEqual(workspaceSourceOf(path.join(project, 's1', 'notes.jsonl'), { workspace, home }), null);
    assert.strictEqual(workspaceSourceOf(rollout, { workspace, home }), rollout);
    assert.strictEqual(workspaceSourceOf(other, { workspace, home }), null);
    assert.strictEqual(workspaceSourceOf(path.join(project, 's1.json'), { workspace, home }), null);
  });
});
