import { ATTEMPT_EVENT } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { decompress } from 'fzstd';
import { ingestionOf } from '../../../../src/ingest/ingest';
import { sourcesIn } from '../../../../src/ingest/sourcesUnder';
import { parentOf } from '../../../../src/store/forks';
import { linkedChildren, readLinked } from '../../../../src/store/subagentLinks';
import { TapeStore } from '../../../../src/store/tapeStore';
import { calls, conversation } from '../foldedSession';

/**
 * What Codex 0.169.1 itself wrote (test/fixtures/agents/codex-0.169.1/README.md), ingested as the
 * CLI ingests a folder, checked against a plain read of the same files.
 */
const DIR = path.join(__dirname, '../../../../../test/fixtures/agents/codex-0.169.1/sessions');

type Rec = { type: string; payload: Record<string, unknown> & { type?: string } };
type Usage = { input_tokens: number; cached_input_tokens: number; output_tokens: number; reasoning_output_tokens: number };

/** Each rollout's records: JSON.parse of each line, a `.zst` decompressed first. */
function rollouts(): Map<string, Rec[]> {
  const out = new Map<string, Rec[]>();
  for (const name of fs.readdirSync(DIR, { recursive: true }).map(String)) {
    const file = path.join(DIR, name);
    if (!/\.jsonl(\.zst)?$/.test(name)) continue;
    const bytes = fs.readFileSync(file);
    const text = Buffer.from(name.endsWith('.zst') ? decompress(bytes) : bytes).toString('utf8');
    const records = text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Rec);
    out.set(`codex:${String(records[0].payload.id)}`, records);
  }
  return out;
}

const items = (records: Rec[], type: string) => records.filter((r) => r.type === 'response_item' && r.payload.type === type).map((r) => r.payload);
const textOf = (p: Record<string, unknown>) => (p.content as { text?: string }[]).flatMap((c) => (c.text === undefined ? [] : [c.text])).join('\n\n');

describe('Codex 0.169.1 as it writes its rollouts (recorded)', function () {
  this.timeout(30_000);
  const raw = rollouts();
  const [parent, child, edit] = ['6c37', '6dd3', '7711'].map((part) => [...raw.keys()].find((s) => s.includes(`-${part}-`)) as string);
  let store: TapeStore;
  let skipped: Record<string, number>;
  before(async () => {
    store = await TapeStore.inMemory();
    skipped = {};
    const { sources } = sourcesIn(DIR);
    assert.strictEqual(sources.length, 3, 'the walk finds the plain rollouts and the compressed one');
    for (const { source, format } of sources) {
      const r = await ingestionOf(source, format ?? undefined).ingest(store);
      assert.strictEqual(r.format, 'codex');
      for (const [k, n] of Object.entries(r.skipped)) skipped[k] = (skipped[k] ?? 0) + n;
    }
  });
  after(() => store.close());

  it('holds every session, the compressed one too', () => {
    assert.deepStrictEqual([...raw.keys()].sort(), [parent, child, edit].sort());
    for (const s of raw.keys()) assert.ok(store.headEntryId(s) > 0, `${s} is on the tape`);
  });

  it('has the prompts and answers the rollouts hold, in order', () => {
    for (const [s, records] of raw) {
      const isChild = records[0].payload.parent_thread_id !== undefined;
      // The person's prompts: user messages that are not Codex's own tagged context; a
      // subagent's prompts are the tasks other agents send it.
      const prompts = items(records, 'message')
        .filter((p) => p.role === 'user' && !textOf(p).trimStart().startsWith('<'))
        .map(textOf);
      const tasks = isChild ? items(records, 'agent_message').map(textOf) : [];
      const answers = items(records, 'message')
        .filter((p) => p.role === 'assistant')
        .map(textOf);
      const said = conversation(store, s);
      assert.deepStrictEqual(
        said.filter((l) => l.startsWith('user: ')).map((l) => l.slice(6)),
        [...tasks, ...prompts],
        s,
      );
      assert.deepStrictEqual(
        said.filter((l) => l.startsWith('assistant: ')).map((l) => l.slice(11)),
        answers,
        s,
      );
    }
    assert.strictEqual(conversation(store, edit)[0], 'user: Read a.txt, fix its typo, then check it.');
  });

  it('pairs every tool call with its result, the freeform apply_patch with its patch as input', () => {
    for (const [s, records] of raw) {
      const made = [...items(records, 'function_call'), ...items(records, 'custom_tool_call')];
      const answered = new Set([...items(records, 'function_call_output'), ...items(records, 'custom_tool_call_output')].map((o) => o.call_id));
      assert.deepStrictEqual(
        calls(store, s)
          .map(([id, name]) => [id, name])
          .sort(),
        made.map((c) => [c.call_id, c.name]).sort(),
        s,
      );
      for (const c of made) assert.ok(answered.has(c.call_id), `${String(c.call_id)} is answered in the rollout`);
    }
    const patch = store.entries(edit).find((e) => e.kind === 'tool_call' && e.name === 'apply_patch');
    assert.strictEqual(patch?.payload.input, items(raw.get(edit) ?? [], 'custom_tool_call')[0].input);
    assert.match(String(patch?.payload.input), /^\*\*\* Begin Patch\n\*\*\* Update File: a\.txt\n/);
  });

  it('links the subagent to the parent call that spawned it', () => {
    const spawn = items(raw.get(parent) ?? [], 'function_call').find((c) => c.name === 'spawn_agent');
    assert.strictEqual(raw.get(child)?.[0].payload.parent_thread_id, parent.slice('codex:'.length));
    const links = linkedChildren(store, parent);
    assert.deepStrictEqual(
      links.map((l) => [l.childSessionId, l.toolCallId]),
      [[child, spawn?.call_id]],
    );
    assert.deepStrictEqual(readLinked(store, parent, child), { childSessionId: child, frozenHead: store.headEntryId(child) });
    assert.strictEqual(parentOf(store, child)?.sessionId, parent);
  });

  it('anchors each compaction, its summary from the history that replaced the conversation', () => {
    for (const [s, records] of raw) {
      const anchors = store.entries(s).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
      assert.strictEqual(anchors.length, records.filter((r) => r.type === 'compacted').length, s);
    }
    const [anchor] = store.entries(edit).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
    const compacted = raw.get(edit)?.find((r) => r.type === 'compacted');
    assert.strictEqual(compacted?.payload.message, '', 'a remote compaction writes no message');
    assert.strictEqual((anchor.payload.state as { summary?: string }).summary, 'Read a.txt, fix its typo, then check it.');
  });

  it('counts each response’s tokens once, as Codex reported them', () => {
    for (const [s, records] of raw) {
      const reported = records.filter((r) => r.type === 'token_usage_record').map((r) => r.payload.usage as Usage);
      const attempts = store.entries(s).filter((e) => e.kind === 'event' && e.name === ATTEMPT_EVENT);
      const sum = (f: (u: Record<string, number>) => number) =>
        attempts.reduce((t, e) => t + f((e.payload.data as { usage: Record<string, number> }).usage), 0);
      const total = (k: keyof Usage) => reported.reduce((t, u) => t + u[k], 0);
      assert.strictEqual(attempts.length, reported.length, s);
      // OpenAI's input includes the cached part, its output the reasoning.
      assert.deepStrictEqual(
        [sum((u) => u.inputTokens), sum((u) => u.cachedTokens), sum((u) => u.outputTokens), sum((u) => u.reasoningTokens)],
        [total('input_tokens'), total('cached_input_tokens'), total('output_tokens'), total('reasoning_output_tokens')],
        s,
      );
    }
    // The compaction's own request has a usage record and no token_count event.
    assert.strictEqual(store.entries(edit).filter((e) => e.kind === 'event' && e.name === ATTEMPT_EVENT).length, 6);
  });

  it('counts what it does not map by type, token_count events among them', () => {
    assert.ok((skipped['event_msg/token_count'] ?? 0) >= 3, JSON.stringify(skipped));
  });
});
