import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import { inspectorRequests } from '../../src/protocol/inspector';
import { claudeCodeProjectDir } from '../../src/ingest/claudeCode/discovery';
import { TapeStore } from '../../src/store/tapeStore';
import { CC_SESSION, jsonl, writeClaudeCode } from '../unit/ingest/fixtures';
import { tempDir } from '../unit/store/helpers';
import { until } from './waiting';

const EXTENSION_ID = 'agent-tape.agent-tape';
const inspectorTabs = (): vscode.Tab[] =>
  vscode.window.tabGroups.all
    .flatMap((g) => g.tabs)
    .filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentTape.inspector'));

describe("other agents' sessions in a real VS Code", () => {
  let api: AgentTapeApi;
  const dir = tempDir();
  const userPrompts = async (sessionId: string): Promise<unknown[]> => {
    const store = await TapeStore.open(await api.workspaceTapeFile(), { readOnly: true });
    try {
      return store
        .entries(sessionId)
        .filter((e) => e.name === 'message/user')
        .map((e) => e.payload.content);
    } finally {
      await store.close();
    }
  };

  before(async () => {
    api = await vscode.extensions.getExtension<AgentTapeApi>(EXTENSION_ID)!.activate();
  });
  after(async () => {
    await vscode.window.tabGroups.close(inspectorTabs());
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('"Tape: Import Agent Sessions…" ingests the chosen transcripts into the workspace tape and opens the inspector; again, it appends nothing', async () => {
    const file = writeClaudeCode(dir);
    const first = await vscode.commands.executeCommand<{ sessions: string[]; appended: number }>('agentTape.importAgentSessions', [file]);
    assert.ok(first && first.appended > 0, JSON.stringify(first));
    assert.deepStrictEqual(first.sessions, [`claude-code:${CC_SESSION}`, `claude-code:${CC_SESSION}/agent-abc`]);
    assert.deepStrictEqual((await userPrompts(`claude-code:${CC_SESSION}`))[0], 'Fix the failing test');
    await until('the inspector on the imported session', () => inspectorTabs()[0]);
    const again = await vscode.commands.executeCommand<{ appended: number }>('agentTape.importAgentSessions', [file]);
    assert.strictEqual(again?.appended, 0);
  });

  it('"Tape: Import Agent Sessions…" names a chosen trace file that holds no GenAI span (another instrumentation\'s) instead of importing nothing in silence', async () => {
    const vendor = path.join(dir, 'vendor-traces.json');
    const at = String(Date.now() * 1_000_000);
    const span = { traceId: '1'.repeat(32), spanId: '2'.repeat(16), name: 'claude_code.interaction', kind: 1, startTimeUnixNano: at, endTimeUnixNano: at };
    fs.writeFileSync(vendor, JSON.stringify({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ scope: { name: 'x' }, spans: [span] }] }] }));
    const r = await vscode.commands.executeCommand<{ sessions: string[]; appended: number; sessionless: string[] }>('agentTape.importAgentSessions', [vendor]);
    assert.deepStrictEqual(r, { sessions: [], appended: 0, failed: [], sessionless: [vendor] });
  });

  it('"Tape: Import Agent Sessions…" takes a chosen *.jsonl of spans (Gemini CLI\'s real traces, as a collector\'s file exporter writes them) by its content, not as a line transcript', async () => {
    const traces = path.join(dir, 'gemini-traces.jsonl');
    fs.copyFileSync(path.join(__dirname, '../../../test/fixtures/agents/gemini-cli-0.61.0-otlp/traces.jsonl'), traces);
    const r = await vscode.commands.executeCommand<{ sessions: string[]; appended: number; failed: string[] }>('agentTape.importAgentSessions', [traces]);
    assert.deepStrictEqual(r?.failed, []);
    assert.ok(r.sessions.length > 0 && r.sessions.every((s) => s.startsWith('otlp:')), JSON.stringify(r.sessions));
    assert.ok(r.appended > 0);
  });

  it("Tape: Export Session as OpenTelemetry names the cache-write tokens as agentTape.otlp.cacheTokens says, for the workspace tape and for a tape file (the tape editor's inspector)", async () => {
    const sessionId = `claude-code:${CC_SESSION}`;
    const exportTo = async (name: string, tapeFile?: string): Promise<string> => {
      const file = path.join(dir, name);
      const receipt = await vscode.commands.executeCommand('agentTape.exportSessionOtlp', vscode.Uri.file(file), sessionId, tapeFile);
      assert.deepStrictEqual(receipt, { file, sessionId });
      return fs.readFileSync(file, 'utf8');
    };
    const spellings = (otlp: string) => [...new Set(otlp.match(/gen_ai\.usage\.cache_(creation|write)\.input_tokens/g))];
    const workspace = await exportTo('default.otlp.json');
    assert.deepStrictEqual(spellings(workspace), ['gen_ai.usage.cache_write.input_tokens']);
    // The import picker's "Choose a File…" takes OTLP/JSON: the spans come back as a session of their conversation id.
    const imported = await vscode.commands.executeCommand<{ sessions: string[]; appended: number }>('agentTape.importAgentSessions', [
      path.join(dir, 'default.otlp.json'),
    ]);
    assert.deepStrictEqual(imported.sessions, [`otlp:${sessionId}`]);
    assert.ok(imported.appended > 0);
    const copy = path.join(dir, 'copy.tape.jsonl');
    await vscode.commands.executeCommand('agentTape.exportSession', vscode.Uri.file(copy), sessionId);
    const config = vscode.workspace.getConfiguration('agentTape.otlp');
    await config.update('cacheTokens', 'cache_creation', vscode.ConfigurationTarget.Global);
    try {
      assert.deepStrictEqual(spellings(await exportTo('old.otlp.json')), ['gen_ai.usage.cache_creation.input_tokens']);
      const fromFile = await exportTo('file.otlp.json', copy);
      assert.deepStrictEqual(spellings(fromFile), ['gen_ai.usage.cache_creation.input_tokens']);
      // The same spans, named after the file they were read from.
      assert.strictEqual(
        fromFile.replaceAll('copy.tape.jsonl', 'T').replaceAll('cache_creation', 'cache_write'),
        workspace.replaceAll(path.basename(await api.workspaceTapeFile()), 'T'),
      );
    } finally {
      await config.update('cacheTokens', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('the Anchors view audits the ingested Claude Code compaction; Pin appends exactly one compaction/pin naming it, a stale anchor nothing; agentTape.inspector.showAnchor opens the inspector', async () => {
    const sessionId = `claude-code:${CC_SESSION}`;
    const anchors = async () => inspectorRequests.anchors.reply.parse(await api.inspectorRequest(sessionId, 'anchors', {})).items;
    const compaction = (await anchors()).find((a) => a.audit !== null);
    assert.ok(compaction, 'the ingested compaction has its audit');
    assert.ok(compaction.name.startsWith('compaction/'), compaction.name);
    assert.ok(compaction.amendable !== null, 'it is the compaction amendments apply to');
    const fact = compaction.audit?.missing[0];
    assert.ok(fact, 'its summary left something out');

    await vscode.window.tabGroups.close(inspectorTabs());
    assert.strictEqual(await vscode.commands.executeCommand('agentTape.inspector.showAnchor', sessionId, compaction.entryId), true);
    await until('the inspector on the session', () => inspectorTabs()[0]);

    const store = await api.workspaceStore();
    const before = store.headEntryId(sessionId);
    const pin = { kind: 'pin', facts: [{ kind: fact.kind, value: fact.value }] };
    const reply = inspectorRequests.amendCompaction.reply.parse(
      await api.inspectorRequest(sessionId, 'amendCompaction', { anchorEntryId: compaction.entryId, amendment: pin }),
    );
    const appended = store.entries(sessionId).filter((e) => e.entryId > before);
    assert.deepStrictEqual(
      appended.map((e) => [e.entryId, e.kind, e.name, e.payload.data]),
      [[before + 1, 'event', 'compaction/pin', { anchorEntryId: compaction.entryId, facts: [{ kind: fact.kind, value: fact.value }] }]],
    );
    assert.strictEqual(reply.entryId, before + 1);
    const amended = (await anchors()).find((a) => a.entryId === compaction.entryId);
    assert.deepStrictEqual(amended?.amendments?.pins, [before + 1]);
    assert.deepStrictEqual(amended?.amendments?.pinnedFacts, [{ kind: fact.kind, value: fact.value }]);

    await assert.rejects(api.inspectorRequest(sessionId, 'amendCompaction', { anchorEntryId: 1, amendment: pin }), /entry 1 is not the compaction in force/);
    assert.strictEqual(store.headEntryId(sessionId), before + 1, 'the refused pin wrote nothing');
  });

  it('with agentTape.followAgentSessions on, a Claude Code session of this workspace lands on the tape as it is written', async () => {
    const workspace = vscode.workspace.workspaceFolders![0].uri.fsPath;
    const project = claudeCodeProjectDir(os.homedir(), workspace);
    const created = !fs.existsSync(project);
    const sessionId = `follow-${process.pid}-${Date.now()}`;
    const file = path.join(project, `${sessionId}.jsonl`);
    const record = (uuid: string, text: string) => ({
      type: 'user',
      uuid,
      parentUuid: null,
      sessionId,
      timestamp: new Date().toISOString(),
      message: { role: 'user', content: text },
    });
    const config = vscode.workspace.getConfiguration('agentTape');
    await config.update('followAgentSessions', true, vscode.ConfigurationTarget.Global);
    try {
      fs.mkdirSync(project, { recursive: true });
      fs.writeFileSync(file, jsonl([record('f1', 'first, while following')]));
      await until('the new session on the tape', async () => ((await userPrompts(`claude-code:${sessionId}`)).length === 1 ? true : undefined), 15_000);
      fs.appendFileSync(file, jsonl([record('f2', 'second, appended')]));
      await until('the appended record on the tape', async () => ((await userPrompts(`claude-code:${sessionId}`)).length === 2 ? true : undefined), 15_000);
      assert.deepStrictEqual(await userPrompts(`claude-code:${sessionId}`), ['first, while following', 'second, appended']);
    } finally {
      await config.update('followAgentSessions', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(file, { force: true });
      if (created) fs.rmSync(project, { recursive: true, force: true });
    }
  });
});
