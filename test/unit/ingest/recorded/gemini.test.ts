import { SUBAGENT_LINKED, ATTEMPT_EVENT } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { Entry } from '../../../../src/tape/entry';
import { calls } from '../foldedSession';

/**
 * The sessions Gemini CLI 0.61.0 wrote (test/fixtures/agents/gemini-cli-0.61.0, recorded by
 * scripts/record-agents/gemini.mjs) ingested, against what a plain read of its logs finds.
 */

const FIXTURE = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'agents', 'gemini-cli-0.61.0', 'chats');

type Rec = Record<string, unknown> & {
  id?: string;
  type?: string;
  content?: unknown;
  tokens?: Record<string, number>;
  toolCalls?: { id: string; name: string; agentId?: string }[];
};

/** A log's records, and its messages as their last line wrote them (the lines of their own, not a `$set`'s). */
function plainRead(file: string): { header: Rec; sets: Rec[]; messages: Map<string, Rec> } {
  const records = fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec);
  const messages = new Map<string, Rec>();
  for (const r of records) if (typeof r.id === 'string') messages.set(r.id, r);
  return { header: records[0], sets: records.flatMap((r) => (r.$set === undefined ? [] : [r.$set as Rec])), messages };
}

const textOf = (content: unknown): string => (Array.isArray(content) ? content.map((p: { text?: string }) => p.text ?? '').join('') : String(content ?? ''));

describe('ingest: Gemini CLI 0.61.0 as it writes its sessions (recorded)', () => {
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-rec-gemini-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maps every prompt, answer, call with its result, subagent, compression and token of the recording', async () => {
    const chats = path.join(dir, 'chats');
    fs.cpSync(FIXTURE, chats, { recursive: true });
    const files = fs.readdirSync(chats).filter((f) => f.endsWith('.jsonl'));
    const childFiles = fs
      .readdirSync(chats, { withFileTypes: true })
      .flatMap((d) => (d.isDirectory() ? fs.readdirSync(path.join(chats, d.name)).map((f) => path.join(d.name, f)) : []));
    const sessions: string[] = [];
    for (const f of files) sessions.push(...(await ingestFile(store, path.join(chats, f))).sessions);
    const all = (name: string): Entry[] => sessions.flatMap((s) => store.entries(s).filter((e) => e.name === name));
    const logs = [...files, ...childFiles].map((f) => plainRead(path.join(chats, f)));
    assert.strictEqual(sessions.length, logs.length);
    const messages = logs.flatMap((l) => [...l.messages.values()]);

    // A prompt is a user line with text Gemini CLI did not put there itself; a subagent's task is its first.
    const prompts = messages.filter((m) => m.type === 'user' && textOf(m.content) !== '' && !textOf(m.content).startsWith('<session_context>'));
    assert.deepStrictEqual(
      all('message/user')
        .map((e) => e.payload.content)
        .sort(),
      prompts.map((m) => textOf(m.content)).sort(),
    );
    assert.ok(prompts.some((m) => textOf(m.content) === 'Read a.txt and change hello to howdy'));
    const answers = messages.filter((m) => m.type === 'gemini');
    assert.deepStrictEqual(
      all('message/assistant')
        .map((e) => e.payload.messageId)
        .sort(),
      answers.map((m) => m.id).sort(),
    );

    const toolCalls = answers.flatMap((m) => m.toolCalls ?? []);
    const paired = sessions.flatMap((s) => calls(store, s));
    assert.deepStrictEqual(paired.map(([id]) => id).sort(), toolCalls.map((c) => c.id).sort());
    assert.deepStrictEqual([...new Set(paired.map(([, name]) => name))].sort(), ['complete_task', 'invoke_agent', 'read_file', 'replace', 'run_shell_command']);
    assert.ok(paired.every(([, , status]) => status === 'ok'));

    const children = logs.filter((l) => l.header.kind === 'subagent');
    assert.strictEqual(children.length, 1);
    for (const child of children) {
      const invoke = toolCalls.find((c) => c.name === 'invoke_agent' && c.agentId === child.header.sessionId);
      assert.ok(invoke, 'the subagent was spawned by an invoke_agent call');
      const links = all(SUBAGENT_LINKED).map((e) => e.payload.data as Record<string, unknown>);
      assert.deepStrictEqual(
        links.map((d) => d.toolCallId),
        [invoke.id],
      );
      assert.match(String(links[0].childSessionId), new RegExp(`/agent-${String(child.header.sessionId)}$`));
      // Linked right after the call that spawned it, with its result.
      const parent = store.entries(sessions.find((s) => store.entries(s).some((e) => e.name === SUBAGENT_LINKED))!);
      const at = parent.findIndex((e) => e.kind === 'tool_result' && e.payload.toolCallId === invoke.id);
      assert.strictEqual(parent[at + 1].name, SUBAGENT_LINKED);
    }

    // The compression: a `$set` whose messages open with the summary Gemini CLI wrote in.
    const summaries = logs.flatMap((l) =>
      l.sets.flatMap((s) => ((s.messages as Rec[] | undefined) ?? []).filter((m) => textOf(m.content).startsWith('<state_snapshot>'))),
    );
    assert.strictEqual(summaries.length, 1);
    const anchorsOf = (s: string): Entry[] => store.entries(s).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    const anchors = sessions.flatMap(anchorsOf);
    assert.strictEqual(anchors.length, 1);
    assert.strictEqual((anchors[0].payload.state as Record<string, unknown>).summary, textOf(summaries[0].content));
    // What the compression replaced was said: it stays, before the anchor, and the resumed turn after it.
    const compressed = sessions.find((s) => anchorsOf(s).length > 0)!;
    const said = store
      .entries(compressed)
      .filter((e) => e.kind === 'message')
      .map((e) => [e.payload.role, e.payload.content]);
    const orderOf = (text: string): unknown => store.entries(compressed).find((e) => e.kind === 'message' && e.payload.content === text)?.payload.orderSeq;
    const cursor = (anchors[0].payload.state as Record<string, unknown>).cursorOrderSeq as number;
    assert.strictEqual(cursor, orderOf('c.txt says "see you".'), 'the anchor stands for everything said before the compression');
    assert.ok(cursor < (orderOf('Now say it again') as number));
    assert.deepStrictEqual(said, [
      ['user', 'Read the big file c.txt'],
      ['assistant', ''],
      ['assistant', 'c.txt says "see you".'],
      ['user', 'Now say it again'],
      ['assistant', 'c.txt says "see you".'],
    ]);

    // Gemini writes input with the cached tokens in it and output without the thoughts.
    const tokens = answers.map((m) => m.tokens!);
    const want = {
      inputTokens: tokens.reduce((n, t) => n + t.input, 0),
      cachedTokens: tokens.reduce((n, t) => n + t.cached, 0),
      outputTokens: tokens.reduce((n, t) => n + t.output + t.thoughts, 0),
      reasoningTokens: tokens.reduce((n, t) => n + t.thoughts, 0),
    };
    const attempts = all(ATTEMPT_EVENT).map((e) => (e.payload.data as { usage: Record<string, number> }).usage);
    assert.strictEqual(attempts.length, answers.length);
    const sum = (k: string): number => attempts.reduce((n, u) => n + (u[k] ?? 0), 0);
    assert.deepStrictEqual(
      { inputTokens: sum('inputTokens'), cachedTokens: sum('cachedTokens'), outputTokens: sum('outputTokens'), reasoningTokens: sum('reasoningTokens') },
      want,
    );
    assert.ok(want.cachedTokens > 0 && want.reasoningTokens > 0);
    // The first request: 1,037 prompt tokens (311 cached), 40 + 3 out and 5 + 2 thoughts.
    assert.ok(attempts.some((u) => u.inputTokens === 1037 && u.cachedTokens === 311 && u.outputTokens === 50 && u.reasoningTokens === 7));
  });
});
