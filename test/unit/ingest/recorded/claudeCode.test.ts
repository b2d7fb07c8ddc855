import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { Entry } from '../../../../src/tape/entry';
import { FoldCache } from '../../../../src/tape/foldCache';

/**
 * What Claude Code 2.1.332 wrote itself (test/fixtures/agents/claude-code-2.1.332, recorded by
 * scripts/record-agents/claude-code.mjs), ingested as the CLI does, checked against figures read
 * from the same files with a plain JSON.parse of each line.
 */
const PROJECT = path.join(__dirname, '../../../../../test/fixtures/agents/claude-code-2.1.332/projects/-tmp-rec-claude-code-Xe9TDk-proj');
const SESSION_A = '0178c38d-62e2-4523-88a6-67671119ea0f';
const SESSION_B = 'ee49c820-f55a-49cf-8703-89043c90e97a';

type Block = { type: string; id?: string; tool_use_id?: string; thinking?: string; text?: string };
type Usage = {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  output_tokens_details?: { thinking_tokens?: number };
};
type Rec = {
  type: string;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  subtype?: string;
  message?: { id?: string; content?: string | Block[]; usage?: Usage };
};

/** Records beside the conversation that become session/meta titles or events; the others are counted. */
const MAPPED = ['custom-title', 'ai-title', 'pr-link'];

const records = (file: string): Rec[] =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Rec);
const blocks = (r: Rec): Block[] => (Array.isArray(r.message?.content) ? r.message.content : []);

/** Each file of a session: the main one and its subagents', with the tape session each becomes. */
function sessionFiles(id: string): { sessionId: string; file: string; meta?: { toolUseId: string } }[] {
  const dir = path.join(PROJECT, id, 'subagents');
  const agents = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^agent-.+\.jsonl$/.test(f)) : [];
  return [
    { sessionId: `claude-code:${id}`, file: path.join(PROJECT, `${id}.jsonl`) },
    ...agents.map((f) => ({
      sessionId: `claude-code:${id}/${f.replace(/\.jsonl$/, '')}`,
      file: path.join(dir, f),
      meta: JSON.parse(fs.readFileSync(path.join(dir, f.replace(/\.jsonl$/, '.meta.json')), 'utf8')) as { toolUseId: string },
    })),
  ];
}

/** What the person typed: user records with text that Claude Code did not write itself (no meta, summary or `<…>` notice). */
function prompts(recs: Rec[]): string[] {
  return recs.flatMap((r) => {
    if (r.type !== 'user' || r.isMeta || r.isCompactSummary) return [];
    const c = r.message?.content;
    const text =
      typeof c === 'string'
        ? c
        : blocks(r)
            .flatMap((b) => (b.type === 'text' ? [b.text] : []))
            .join('\n\n');
    return text === '' || /^<(local-command|task-notification|system-reminder)/.test(text) ? [] : [text];
  });
}

/** One usage per API message, however many lines (one per content block) repeat it. */
function usages(recs: Rec[]): Usage[] {
  const byId = new Map<string, Usage>();
  for (const r of recs) if (r.type === 'assistant' && r.message?.id && r.message.usage) byId.set(r.message.id, r.message.usage);
  return [...byId.values()];
}

const attempts = (entries: Entry[]) =>
  entries.filter((e) => e.name === 'provider/attempt').map((e) => (e.payload.data as { usage: Record<string, number> }).usage);
const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);

describe('Claude Code 2.1.332 as recorded', function () {
  this.timeout(20_000);
  let store: TapeStore;
  const reports = new Map<string, Record<string, number>>();
  before(async () => {
    store = await TapeStore.inMemory();
    for (const id of [SESSION_A, SESSION_B]) reports.set(id, (await ingestFile(store, path.join(PROJECT, `${id}.jsonl`))).skipped);
  });
  after(() => store.close());

  for (const id of [SESSION_A, SESSION_B])
    describe(`session ${id.slice(0, 8)}`, () => {
      it('has each prompt, one answer and one attempt per API message, and every tool call paired with its result', () => {
        for (const { sessionId, file } of sessionFiles(id)) {
          const recs = records(file);
          const entries = store.entries(sessionId);
          assert.deepStrictEqual(
            entries.filter((e) => e.name === 'message/user').map((e) => e.payload.content),
            prompts(recs),
          );
          const messageIds = new Set(recs.filter((r) => r.type === 'assistant').map((r) => r.message?.id));
          assert.deepStrictEqual(new Set(entries.filter((e) => e.name === 'message/assistant').map((e) => e.payload.messageId)), messageIds);
          assert.strictEqual(attempts(entries).length, messageIds.size);
          const calls = recs.flatMap((r) => (r.type === 'assistant' ? blocks(r).filter((b) => b.type === 'tool_use') : []));
          const results = new Set(recs.flatMap((r) => (r.type === 'user' ? blocks(r).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])) : [])));
          const view = new FoldCache(store).view(sessionId, { includePending: false });
          assert.deepStrictEqual(
            view.toolCalls.map((c) => c.toolCallId),
            calls.map((c) => c.id),
          );
          for (const c of view.toolCalls) {
            assert.ok(results.has(c.toolCallId), `the file answers ${c.toolCallId}`);
            assert.ok(view.toolFacts.get(c.messageId)?.results.has(c.toolCallId), `${c.toolCallId} is paired on the tape`);
          }
          // A thinking block with nothing but its signature is no event.
          const thought = recs.flatMap((r) => blocks(r).filter((b) => b.type === 'thinking' && b.thinking !== ''));
          assert.strictEqual(entries.filter((e) => e.name === 'claude-code/thinking').length, thought.length);
        }
      });

      it('sums the tokens as Claude Code reported them, input counting the cache, output counting the thinking', () => {
        for (const { sessionId, file } of sessionFiles(id)) {
          const us = usages(records(file));
          const tape = attempts(store.entries(sessionId));
          assert.ok(us.length > 0);
          assert.deepStrictEqual(
            {
              inputTokens: sum(tape, (u) => u.inputTokens),
              cachedTokens: sum(tape, (u) => u.cachedTokens),
              cacheCreationTokens: sum(tape, (u) => u.cacheCreationTokens),
              outputTokens: sum(tape, (u) => u.outputTokens),
              reasoningTokens: sum(tape, (u) => u.reasoningTokens),
            },
            {
              inputTokens: sum(us, (u) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens),
              cachedTokens: sum(us, (u) => u.cache_read_input_tokens),
              cacheCreationTokens: sum(us, (u) => u.cache_creation_input_tokens),
              outputTokens: sum(us, (u) => u.output_tokens),
              reasoningTokens: sum(us, (u) => u.output_tokens_details?.thinking_tokens ?? 0),
            },
          );
        }
      });

      it('counts each record that is not conversation by its type, none of them a message', () => {
        const counted: Record<string, number> = {};
        for (const { file } of sessionFiles(id))
          for (const r of records(file)) if (!['user', 'assistant', 'system', ...MAPPED].includes(r.type)) counted[r.type] = (counted[r.type] ?? 0) + 1;
        assert.ok(counted['api-request-blob'] > 0 && counted['attachment'] > 0);
        const skipped = reports.get(id) ?? {};
        for (const [type, n] of Object.entries(counted)) assert.strictEqual(skipped[type], n, type);
      });
    });

  it('reads the first prompt, the compaction as an anchor and the large output from tool-results/', () => {
    const sessionId = `claude-code:${SESSION_A}`;
    const entries = store.entries(sessionId);
    assert.strictEqual(
      entries.find((e) => e.name === 'message/user')?.payload.content,
      'TAPE-A: read a.txt, change hello world to hello tape, then list the files.',
    );
    const boundaries = records(path.join(PROJECT, `${SESSION_A}.jsonl`)).filter((r) => r.type === 'system' && r.subtype === 'compact_boundary');
    assert.strictEqual(boundaries.length, 1);
    const anchors = entries.filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    assert.deepStrictEqual(
      anchors.map((e) => e.name),
      ['compaction/manual'],
    );
    assert.match(String(anchors[0].payload.state && (anchors[0].payload.state as { summary: string }).summary), /a\.txt now says hello tape/);
    const bash = entries.find((e) => e.kind === 'tool_result' && e.name === 'Bash');
    const kept = fs.readFileSync(path.join(PROJECT, SESSION_A, 'tool-results', fs.readdirSync(path.join(PROJECT, SESSION_A, 'tool-results'))[0]), 'utf8');
    assert.strictEqual(bash?.payload.output, kept);
    assert.match(kept, /\n600\n$/, 'the whole output, past the preview');
  });

  it('names session B as -n named it, and links its subagent after the Agent call its .meta.json names', () => {
    const parent = `claude-code:${SESSION_B}`;
    const entries = store.entries(parent);
    const metas = entries.filter((e) => e.name === 'session/meta').map((e) => (e.payload.data as { title?: string }).title);
    assert.strictEqual(metas.at(-1), 'Scripted session B');
    const children = sessionFiles(SESSION_B).slice(1);
    assert.strictEqual(children.length, 1);
    for (const child of children) {
      const link = entries.find((e) => e.name === 'subagent/linked' && (e.payload.data as { childSessionId: string }).childSessionId === child.sessionId);
      assert.ok(link, `${child.sessionId} is linked`);
      assert.strictEqual((link.payload.data as { toolCallId?: string }).toolCallId, child.meta?.toolUseId);
      const call = entries.find((e) => e.kind === 'tool_call' && e.payload.toolCallId === child.meta?.toolUseId);
      assert.strictEqual(call?.name, 'Agent');
      assert.ok(call.entryId < link.entryId, 'the link follows its call');
      assert.strictEqual(store.entries(child.sessionId).find((e) => e.name === 'message/user')?.payload.content, 'TAPE-SUB: read b.txt and say what it holds.');
    }
  });
});
