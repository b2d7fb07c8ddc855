import { ATTEMPT_EVENT } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { discoverSessions } from '../../../../src/ingest/sessionDiscovery';
import { sourcesIn } from '../../../../src/ingest/sourcesUnder';
import { childrenOf } from '../../../../src/store/forks';
import { readLinked } from '../../../../src/store/subagentLinks';
import { TapeStore } from '../../../../src/store/tapeStore';
import { calls, conversation } from '../foldedSession';

/**
 * What Copilot CLI 1.0.102 itself wrote (test/fixtures/agents/copilot-cli-1.0.102, recorded by
 * scripts/record-agents/copilot-cli.mjs), ingested as the CLI does, checked against figures read
 * here from the raw log with a plain JSON.parse of each line.
 */

const FIXTURE = path.join(__dirname, '../../../../../test/fixtures/agents/copilot-cli-1.0.102');
const STATE = path.join(FIXTURE, 'session-state');
const ID = fs.readdirSync(STATE)[0];
const LOG = path.join(STATE, ID, 'events.jsonl');
const SESSION = `copilot-cli:${ID}`;

interface RawEvent {
  type: string;
  agentId?: string;
  data: Record<string, unknown>;
}
const raw: RawEvent[] = fs
  .readFileSync(LOG, 'utf8')
  .split('\n')
  .filter((l) => l !== '')
  .map((l) => JSON.parse(l) as RawEvent);
const ofAgent = (agentId: string | undefined) => raw.filter((e) => e.agentId === agentId);
const agentIds = [...new Set(raw.filter((e) => e.type === 'subagent.started').map((e) => e.agentId as string))];
const sessionOf = (agentId: string | undefined) => (agentId === undefined ? SESSION : `${SESSION}/agent-${agentId}`);

type Usage = { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; reasoningTokens?: number };
const usages = (events: RawEvent[]): Usage[] => [
  ...events.filter((e) => e.type === 'session.usage_record').map((e) => e.data.usage as Usage),
  ...events.filter((e) => e.type === 'session.compaction_complete').map((e) => e.data.compactionTokensUsed as Usage),
];
const sum = (us: Usage[], k: keyof Usage) => us.reduce((n, u) => n + (u[k] ?? 0), 0);

describe('Copilot CLI 1.0.102 as it writes its sessions (recorded)', function () {
  this.timeout(20_000);
  let store: TapeStore;
  beforeEach(async () => {
    store = await TapeStore.inMemory();
  });
  afterEach(() => store.close());

  it('is found in a copied folder and ingested as copilot-cli, its subagent a linked child', async () => {
    assert.deepStrictEqual(
      sourcesIn(FIXTURE).sources.map((s) => [s.source, s.format]),
      [[LOG, 'copilot-cli']],
    );
    const r = await ingestFile(store, LOG);
    assert.strictEqual(r.format, 'copilot-cli');
    assert.deepStrictEqual([...r.sessions].sort(), [SESSION, ...agentIds.map(sessionOf)].sort());
    assert.strictEqual(agentIds.length, 1);
    assert.deepStrictEqual(
      childrenOf(store, SESSION).map((c) => [c.sessionId, c.relation]),
      agentIds.map((a) => [sessionOf(a), 'subagent']),
    );
    for (const a of agentIds) {
      const child = sessionOf(a);
      assert.deepStrictEqual(readLinked(store, SESSION, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
      // The link comes right after the call that spawned it (and before that call's result).
      const spawn = raw.find((e) => e.type === 'subagent.started' && e.agentId === a)?.data.toolCallId;
      const entries = store.entries(SESSION);
      const at = (pred: (e: (typeof entries)[number]) => boolean) => entries.findIndex(pred);
      const callAt = at((e) => e.kind === 'tool_call' && e.payload.toolCallId === spawn);
      const linkAt = at((e) => e.name === 'subagent/linked' && (e.payload.data as { childSessionId?: string }).childSessionId === child);
      const resultAt = at((e) => e.kind === 'tool_result' && e.payload.toolCallId === spawn);
      assert.ok(callAt >= 0 && callAt < linkAt && linkAt < resultAt, `${callAt} < ${linkAt} < ${resultAt}`);
    }
  });

  it('has every prompt, answer and tool call of each agent, each call with its result', async () => {
    await ingestFile(store, LOG);
    for (const agentId of [undefined, ...agentIds]) {
      const events = ofAgent(agentId);
      const prompts = events.filter((e) => e.type === 'user.message').map((e) => `user: ${String(e.data.content)}`);
      const answers = events.filter((e) => e.type === 'assistant.message' && e.data.content !== '').map((e) => `assistant: ${String(e.data.content)}`);
      const said = conversation(store, sessionOf(agentId));
      assert.deepStrictEqual(
        said.filter((l) => l.startsWith('user: ')),
        prompts,
      );
      assert.deepStrictEqual(
        said.filter((l) => l.startsWith('assistant: ')),
        answers,
      );
      const requested = events
        .filter((e) => e.type === 'assistant.message')
        .flatMap((e) => (e.data.toolRequests as { toolCallId: string; name: string }[]).map((t) => [t.toolCallId, t.name]));
      // A call's result is written untagged when the call spawned a subagent: by call id, not by agent.
      const results = new Map(raw.filter((e) => e.type === 'tool.execution_complete').map((e) => [e.data.toolCallId, e.data]));
      assert.deepStrictEqual(
        calls(store, sessionOf(agentId)).map(([id, name, status]) => [id, name, status]),
        requested.map(([id, name]) => [id, name, results.get(id)?.success === true ? 'ok' : 'error']),
      );
    }
    assert.deepStrictEqual(conversation(store, SESSION)[0], 'user: Fix the typo in a.txt, show it, and have a subagent review it.');
    assert.deepStrictEqual(
      calls(store, SESSION).map(([, name]) => name),
      ['view', 'edit', 'bash', 'task'],
    );
  });

  it("keeps the compaction as an anchor with Copilot CLI's summary", async () => {
    await ingestFile(store, LOG);
    const compactions = raw.filter((e) => e.type === 'session.compaction_complete' && e.data.success === true);
    const anchors = store.entries(SESSION).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    assert.deepStrictEqual(
      anchors.map((a) => [a.name, (a.payload.state as { summary: string }).summary]),
      compactions.map((c) => [`compaction/${String(c.data.trigger)}`, c.data.summaryContent]),
    );
    assert.deepStrictEqual(anchors.length, 1);
    assert.match((anchors[0].payload.state as { summary: string }).summary, /fix a typo in a\.txt/);
  });

  it('has one attempt per model request with the tokens as Copilot CLI reported them', async () => {
    await ingestFile(store, LOG);
    let requests = 0;
    for (const agentId of [undefined, ...agentIds]) {
      const reported = usages(ofAgent(agentId));
      const attempts = store
        .entries(sessionOf(agentId))
        .filter((e) => e.kind === 'event' && e.name === ATTEMPT_EVENT)
        .map((e) => (e.payload.data as { usage: Record<string, number> }).usage);
      assert.strictEqual(attempts.length, reported.length);
      const total = (k: string) => attempts.reduce((n, u) => n + u[k], 0);
      // Copilot CLI's input includes the cache reads and its output the reasoning, as the tape's do.
      assert.deepStrictEqual(
        { input: total('inputTokens'), cached: total('cachedTokens'), output: total('outputTokens'), reasoning: total('reasoningTokens') },
        {
          input: sum(reported, 'inputTokens'),
          cached: sum(reported, 'cacheReadTokens'),
          output: sum(reported, 'outputTokens'),
          reasoning: sum(reported, 'reasoningTokens'),
        },
      );
      requests += attempts.length;
    }
    // Its own totals at shutdown count every request but the compaction's.
    const shutdown = raw.filter((e) => e.type === 'session.shutdown').at(-1)?.data as {
      modelMetrics: Record<string, { requests: { count: number }; usage: Usage }>;
    };
    const metrics = Object.values(shutdown.modelMetrics);
    assert.strictEqual(requests, metrics.reduce((n, m) => n + m.requests.count, 0) + 1);
    const recorded = raw.filter((e) => e.type === 'session.usage_record').map((e) => e.data.usage as Usage);
    assert.strictEqual(
      sum(recorded, 'inputTokens'),
      sum(
        metrics.map((m) => m.usage),
        'inputTokens',
      ),
    );
    assert.strictEqual(sum(recorded, 'inputTokens'), 16_800);
    assert.strictEqual(sum(recorded, 'reasoningTokens'), 49);
  });

  it('is discovered for the folder it ran in and titled on the tape as the picker lists it', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-copilot-home-'));
    try {
      fs.cpSync(STATE, path.join(home, '.copilot', 'session-state'), { recursive: true });
      const cwd = /^cwd: (.*)$/m.exec(fs.readFileSync(path.join(STATE, ID, 'workspace.yaml'), 'utf8'))?.[1] ?? '';
      const found = discoverSessions({ workspace: cwd, home });
      const prompt = raw.find((e) => e.type === 'user.message' && e.agentId === undefined)?.data.content;
      assert.deepStrictEqual(
        found.map((f) => [f.format, f.firstPrompt]),
        [['copilot-cli', prompt]],
      );
      assert.strictEqual(prompt, 'Fix the typo in a.txt, show it, and have a subagent review it.');
      await ingestFile(store, found[0].file);
      const titles = store.entries(SESSION).filter((e) => e.kind === 'event' && e.name === 'session/title');
      assert.deepStrictEqual(
        titles.map((e) => (e.payload.data as { title: string }).title),
        [prompt],
      );
      assert.deepStrictEqual(discoverSessions({ workspace: path.join(cwd, 'elsewhere'), home }), []);
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('counts what it does not map by type, and a second ingest appends nothing', async () => {
    const first = await ingestFile(store, LOG);
    const turns = raw.filter((e) => e.type === 'assistant.turn_start').length;
    assert.strictEqual(first.skipped['assistant.turn_start'], turns);
    assert.strictEqual(first.skipped['tool.execution_start'], raw.filter((e) => e.type === 'tool.execution_start').length);
    const again = await ingestFile(store, LOG);
    assert.strictEqual(again.appended, 0);
  });
});
