import { VIEW_ASSEMBLED, SYSTEM_TOOLS } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession, defaultTools } from '../../../src/agent/agentSession';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { ToolRegistry, type Toolbox } from '../../../src/agent/tools/tool';
import { WORKSPACE_TOOLS } from '../../../src/agent/tools/workspaceTools';
import { TapeStore } from '../../../src/store/tapeStore';
import type { Entry } from '../../../src/tape/entry';
import { manifestOfEntry, toolsHashOf } from '../../../src/tape/manifest';
import type { SamplingOptions } from '../../../src/tape/requestParams';
import { toolsOfEntry } from '../../../src/tape/toolsEntry';

const SESSION = 'exact';
const ANSWER: ScriptedStep[][] = [[{ text: 'Done.' }]];

/** What a re-run needs is recorded by the agent as it sends it: the tool set of each request and its parameters. */
describe('exact requests: the tool set and the parameters each request was sent with', function () {
  this.timeout(20_000);
  let dir: string;
  let store: TapeStore;
  let models: ScriptedModel[];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-exact-'));
    fs.mkdirSync(path.join(dir, 'ws'));
    fs.writeFileSync(path.join(dir, 'ws', 'notes.md'), 'Build with esbuild.\n');
    store = await TapeStore.open(path.join(dir, 'exact.tape.sqlite'));
    models = [];
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** One turn through a new AgentSession (as the chat participant builds one per request). */
  async function turn(text: string, responses: ScriptedStep[][], over: { tools?: Toolbox; sampling?: SamplingOptions } = {}): Promise<void> {
    const model = new ScriptedModel(responses);
    models.push(model);
    const outcome = await new AgentSession({
      tape: new OpenTape(store),
      sessionId: SESSION,
      model,
      workspace: path.join(dir, 'ws'),
      permissions: { edits: false, commands: false },
      environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
      ...over,
    }).runTurn(text, { signal: new AbortController().signal });
    assert.strictEqual(outcome.outcome, 'answer');
  }

  const toolSets = (): Entry[] => store.entries(SESSION, { kind: 'system', name: SYSTEM_TOOLS });
  const manifests = () => store.entries(SESSION, { kind: 'event', name: VIEW_ASSEMBLED }).map((e) => ({ entryId: e.entryId, manifest: manifestOfEntry(e) }));
  const sent = () => models.flatMap((m) => m.requests);

  it('writes a tool set once per distinct set in a session, again when it changes, and each request names the set it was sent', async () => {
    const fewer = new ToolRegistry(WORKSPACE_TOOLS.filter((t) => t.name === 'read_file' || t.name === 'list_dir'));
    await turn('Read notes.md', [[{ toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } }], ...ANSWER]);
    await turn('Again', ANSWER);
    await turn('With fewer tools', ANSWER, { tools: fewer });
    await turn('And back', ANSWER, { tools: defaultTools() });

    const sets = toolSets();
    assert.strictEqual(sets.length, 2, 'the full set once (its second and fourth use are the same set), the smaller set once');
    const [full, small] = sets.map(toolsOfEntry);
    assert.deepStrictEqual(full.tools, defaultTools().specs());
    assert.deepStrictEqual(small.tools, fewer.specs());
    assert.strictEqual(
      sets[0].payload.content,
      defaultTools()
        .specs()
        .map((t) => t.name)
        .join(', '),
    );
    assert.strictEqual(sets[1].payload.content, 'read_file, list_dir');

    // Each request's manifest names a set recorded before it, and that set is what the model was given.
    const requests = manifests();
    assert.strictEqual(requests.length, 5);
    assert.strictEqual(sent().length, 5);
    requests.forEach(({ entryId, manifest }, i) => {
      const set = sets.find((e) => e.payload.hash === manifest.hashes.toolsHash);
      assert.ok(set !== undefined && set.entryId < entryId, `request ${i + 1} has its tool set before it`);
      assert.deepStrictEqual(toolsOfEntry(set).tools, sent()[i].tools);
      assert.strictEqual(toolsHashOf(sent()[i].tools), manifest.hashes.toolsHash);
    });
    assert.deepStrictEqual(
      requests.map((r) => r.manifest.hashes.toolsHash),
      [full.hash, full.hash, full.hash, small.hash, full.hash],
    );
  });

  it('records the parameters each request was sent with in its manifest (schema version 2), and only those given', async () => {
    await turn('Plain', ANSWER);
    const sampling: SamplingOptions = { temperature: 0.25, seed: 11, toolChoice: 'auto', reasoningEffort: 'low' };
    await turn('Tuned', [[{ toolCall: { id: 'c1', name: 'list_dir', arguments: { path: '.' } } }], ...ANSWER], { sampling });
    await turn('No tools, so no tool choice', ANSWER, { sampling: { toolChoice: 'required' }, tools: new ToolRegistry([]) });

    const [plain, tuned1, tuned2, toolless] = manifests().map((r) => r.manifest);
    const maxOutput = models[0].info.maxOutput;
    for (const m of [plain, tuned1, tuned2, toolless]) assert.strictEqual(m.schemaVersion, 2);
    assert.deepStrictEqual(plain.params, { maxOutput });
    assert.deepStrictEqual(tuned1.params, { maxOutput, ...sampling });
    assert.deepStrictEqual(tuned2.params, { maxOutput, ...sampling });
    assert.deepStrictEqual(toolless.params, { maxOutput });

    // What was recorded is what the port was given: the same parameters, and no key for an option not given.
    const given = sent().map(({ messages: _messages, tools: _tools, ...params }) => params);
    assert.deepStrictEqual(given, [{ maxOutput }, { maxOutput, ...sampling }, { maxOutput, ...sampling }, { maxOutput }]);
    assert.deepStrictEqual(sent()[3].tools, []);
  });
});
