import { VIEW_ASSEMBLED } from '../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { AgentTapeApi } from '../../src/extension/extension';
import type { VerifyReport } from '../../src/rerun/verify';
import { hashManifest, type ViewManifest } from '../../src/tape/manifest';
import { tempDir } from '../unit/store/helpers';
import { until } from './waiting';

const root = path.resolve(__dirname, '../../..');
const SAMPLE = path.join(root, 'test/fixtures/tapes/inspector-two-requests.tape.jsonl');
const SAMPLE_SESSION = 'inspector-sample';

/** The report document the command opened whose text includes `text`. */
const reportShowing = (text: string): Promise<string> =>
  until(`a verification report showing ${JSON.stringify(text)}`, () =>
    vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'agent-tape-verify' && d.getText().includes(text))?.getText(),
  );

describe('Tape: Verify Replay in a real VS Code', () => {
  const dir = tempDir();

  before(async () => {
    const ext = vscode.extensions.getExtension<AgentTapeApi>('agent-tape.agent-tape');
    assert.ok(ext);
    await ext.activate();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('verifies a tape file the agent recorded and shows the report as a read-only Markdown document', async () => {
    const report = await vscode.commands.executeCommand<VerifyReport>('agentTape.verifyReplay', vscode.Uri.file(SAMPLE));
    assert.ok(report);
    assert.strictEqual(report.ok, true);
    assert.deepStrictEqual([report.summary.requests, report.summary.match], [2, 2]);
    const text = await reportShowing('**Verified**: 2 recorded requests');
    assert.match(text, /^- ✓ `[^`]+\/1` #5 \(from entries up to #4\): match$/m);
  });

  it('reports an altered builder version as cannot rebuild', async () => {
    const lines = fs
      .readFileSync(SAMPLE, 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { name: string; payload: { data: ViewManifest } });
    const target = lines.find((l) => l.name === VIEW_ASSEMBLED);
    assert.ok(target);
    target.payload.data.builderVersion = 'agent-tape/assemble@0';
    target.payload.data.hashes.manifestHash = hashManifest(target.payload.data);
    const file = path.join(dir, 'altered.tape.jsonl');
    fs.writeFileSync(file, lines.map((l) => `${JSON.stringify(l)}\n`).join(''));
    const report = await vscode.commands.executeCommand<VerifyReport>('agentTape.verifyReplay', vscode.Uri.file(file));
    assert.strictEqual(report?.ok, false);
    const text = await reportShowing('**Failed**');
    assert.match(text, /\*\*cannot rebuild\*\*: `builder agent-tape\/assemble@0 is unknown/);
  });

  it('verifies a session of the workspace tape given by id or by a row of the sessions view', async () => {
    await vscode.commands.executeCommand('agentTape.importTapeFile', vscode.Uri.file(SAMPLE));
    const byId = await vscode.commands.executeCommand<VerifyReport>('agentTape.verifyReplay', SAMPLE_SESSION);
    assert.deepStrictEqual(
      byId?.sessions.map((s) => [s.sessionId, s.ok]),
      [[SAMPLE_SESSION, true]],
    );
    const byRow = await vscode.commands.executeCommand<VerifyReport>('agentTape.verifyReplay', { sessionId: SAMPLE_SESSION, title: 'sample' });
    assert.strictEqual(byRow?.summary.match, 2);
  });
});
