import { ATTEMPT_EVENT } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { decompress } from 'fzstd';
import { ingestFile, ingestionOf } from '../../../src/ingest/ingest';
import { discoverSessions } from '../../../src/ingest/sessionDiscovery';
import { sourcesIn } from '../../../src/ingest/sourcesUnder';
import { readZstdFileSync, readZstdHeadSync } from '../../../src/ingest/zstdFile';
import { TapeFileError } from '../../../src/store/errors';
import { parentOf } from '../../../src/store/forks';
import { linkedChildren, readLinked } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { jsonl } from './fixtures';
import { conversation } from './foldedSession';

/** Codex 0.16x's record types, each in a small rollout of its own (the recorded ones: recorded/codex.test.ts). */

const PARENT = '019b0000-1111-7222-8333-444455556666';
const CHILD = '019b0000-2222-7222-8333-444455556666';
const RECORDED = path.join(__dirname, '../../../../test/fixtures/agents/codex-0.169.1/sessions/2026/12/06');
const c = (i: number, type: string, payload: object) => ({ timestamp: `2026-12-01T10:00:${String(i).padStart(2, '0')}.000Z`, type, payload });
const user = (text: string, id?: string) => ({ type: 'message', ...(id ? { id } : {}), role: 'user', content: [{ type: 'input_text', text }] });
const assistant = (text: string, id?: string) => ({ type: 'message', ...(id ? { id } : {}), role: 'assistant', content: [{ type: 'output_text', text }] });
const usage = (input: number, cached: number, output: number, reasoning: number) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  cache_write_input_tokens: 0,
  output_tokens: output,
  reasoning_output_tokens: reasoning,
  total_tokens: input + output,
});
const tokenCount = (i: number, u: object) => c(i, 'event_msg', { type: 'token_count', info: { last_token_usage: u, total_token_usage: u } });

describe('Codex 0.16x rollouts', function () {
  this.timeout(20_000);
  let home: string;
  let day: string;
  let store: TapeStore;
  const write = (id: string, records: object[], time = '10-00-00'): string => {
    const file = path.join(day, `rollout-2026-12-01T${time}-${id}.jsonl`);
    fs.writeFileSync(file, jsonl(records));
    return file;
  };
  beforeEach(async () => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-codex016-'));
    day = path.join(home, '.codex', 'sessions', '2026', '12', '01');
    fs.mkdirSync(day, { recursive: true });
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('counts a response’s tokens once: its token_usage_record, not the token_count events that repeat it', async () => {
    const records = [
      c(0, 'session_meta', { id: PARENT, cwd: '/w' }),
      c(1, 'turn_context', { model: 'gpt-5.5' }),
      c(2, 'response_item', user('Hi')),
      c(3, 'token_usage_record', { response_id: 'resp_1', usage: usage(1000, 600, 50, 20) }),
      tokenCount(4, usage(1000, 600, 50, 20)),
      // A compaction's request has a record and no token_count; a resumed turn repeats the last count.
      c(5, 'token_usage_record', { response_id: 'resp_2', usage: usage(1200, 0, 80, 30) }),
      tokenCount(6, usage(1000, 600, 50, 20)),
    ];
    const r = await ingestFile(store, write(PARENT, records));
    assert.strictEqual(r.skipped['event_msg/token_count'], 2);
    const attempts = store.entries(`codex:${PARENT}`).filter((e) => e.name === ATTEMPT_EVENT);
    assert.deepStrictEqual(
      attempts.map((e) => (e.payload.data as { usage: object }).usage),
      [
        {
          inputTokens: 1000,
          outputTokens: 50,
          cachedTokens: 600,
          cacheCreationTokens: 0,
          reasoningTokens: 20,
          inputIncludesCached: true,
          reported: { input: 1000, output: 50, cacheRead: 600, cacheWrite: 0, reasoning: 20 },
        },
        {
          inputTokens: 1200,
          outputTokens: 80,
          cachedTokens: 0,
          cacheCreationTokens: 0,
          reasoningTokens: 30,
          inputIncludesCached: true,
          reported: { input: 1200, output: 80, cacheRead: 0, cacheWrite: 0, reasoning: 30 },
        },
      ],
    );
  });

  it('reads a compaction’s summary from its history entries: items inline or referred to by id', async () => {
    const records = [
      c(0, 'session_meta', { id: PARENT, cwd: '/w' }),
      c(1, 'response_item', user('Fix the parser', 'msg_u1')),
      c(2, 'response_item', assistant('Fixed the parser.', 'msg_a1')),
      c(3, 'compacted', {
        message: '',
        replacement_history_entries: [
          { type: 'inline', item: user('<environment_context><cwd>/w</cwd></environment_context>') },
          { type: 'reference', item_id: 'msg_u1' },
          { type: 'reference', item_id: 'msg_unknown' },
          { type: 'inline', item: user('And the lexer'), metadata: { client_authored: true } },
          { type: 'inline', item: { type: 'compaction', encrypted_content: 'gAAAA' } },
        ],
      }),
    ];
    await ingestFile(store, write(PARENT, records));
    const anchor = store.entries(`codex:${PARENT}`).find((e) => e.name === 'compaction/auto');
    assert.strictEqual((anchor?.payload.state as { summary: string }).summary, 'Fix the parser\n\nAnd the lexer');
  });

  it('a unified exec output that says the process exited non-zero is an error', async () => {
    const records = [
      c(0, 'session_meta', { id: PARENT, cwd: '/w' }),
      c(1, 'response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"false"}', call_id: 'call_1' }),
      c(2, 'response_item', {
        type: 'function_call_output',
        call_id: 'call_1',
        output: 'Chunk ID: 1\nWall time: 0.0 seconds\nProcess exited with code 1\nOutput:\n',
      }),
    ];
    await ingestFile(store, write(PARENT, records));
    assert.deepStrictEqual(
      store
        .entries(`codex:${PARENT}`)
        .filter((e) => e.kind === 'tool_result')
        .map((e) => e.payload.status),
      ['error'],
    );
  });

  describe('a multi_agent_v2 subagent', () => {
    const parentRecords = () => [
      c(0, 'session_meta', { id: PARENT, cwd: '/w' }),
      c(1, 'response_item', user('Ask a helper')),
      c(2, 'response_item', {
        type: 'function_call',
        name: 'spawn_agent',
        namespace: 'collaboration',
        arguments: '{"task_name":"helper","message":"Count"}',
        call_id: 'call_1',
      }),
      c(3, 'event_msg', {
        type: 'item_completed',
        item: { type: 'SubAgentActivity', kind: 'started', id: 'call_1', agent_thread_id: CHILD, agent_path: '/root/helper' },
      }),
      c(4, 'response_item', { type: 'function_call_output', call_id: 'call_1', output: '{"task_name":"/root/helper"}' }),
      c(5, 'response_item', { type: 'function_call', name: 'wait_agent', namespace: 'collaboration', arguments: '{}', call_id: 'call_2' }),
      c(6, 'response_item', { type: 'function_call_output', call_id: 'call_2', output: '{"message":"Wait completed.","timed_out":false}' }),
      c(7, 'inter_agent_communication_metadata', { trigger_turn: false }),
      c(8, 'response_item', {
        type: 'agent_message',
        author: '/root/helper',
        recipient: '/root',
        content: [{ type: 'input_text', text: 'Message Type: FINAL_ANSWER\nPayload:\n3' }],
      }),
      c(9, 'response_item', assistant('It has 3 lines.')),
    ];
    const childRecords = () => [
      c(1, 'session_meta', { id: CHILD, parent_thread_id: PARENT, cwd: '/w', source: { subagent: { thread_spawn: { parent_thread_id: PARENT } } } }),
      c(2, 'world_state', { full: true, state: {} }),
      c(3, 'inter_agent_communication_metadata', { trigger_turn: true }),
      c(4, 'response_item', {
        type: 'agent_message',
        author: '/root',
        recipient: '/root/helper',
        content: [
          { type: 'input_text', text: 'Message Type: NEW_TASK\nPayload:\n' },
          { type: 'encrypted_content', encrypted_content: 'gAAAA' },
        ],
      }),
      c(5, 'response_item', assistant('3')),
    ];

    it('is read with its parent: linked after the call that spawned it, its task its prompt, the calls paired', async () => {
      const parent = write(PARENT, parentRecords());
      write(CHILD, childRecords(), '10-00-01');
      const r = await ingestFile(store, parent);
      assert.deepStrictEqual(r.sessions, [`codex:${PARENT}`, `codex:${CHILD}`]);
      assert.deepStrictEqual(readLinked(store, `codex:${PARENT}`, `codex:${CHILD}`), {
        childSessionId: `codex:${CHILD}`,
        frozenHead: store.headEntryId(`codex:${CHILD}`),
      });
      assert.deepStrictEqual(
        linkedChildren(store, `codex:${PARENT}`).map((l) => l.toolCallId),
        ['call_1'],
      );
      assert.strictEqual(parentOf(store, `codex:${CHILD}`)?.sessionId, `codex:${PARENT}`);
      const entries = store.entries(`codex:${PARENT}`);
      const at = (pred: (e: (typeof entries)[number]) => boolean) => entries.findIndex(pred);
      assert.ok(at((e) => e.name === 'subagent/linked') > at((e) => e.kind === 'tool_call' && e.name === 'spawn_agent'));
      assert.deepStrictEqual(
        entries.filter((e) => e.kind === 'tool_result').map((e) => e.payload.toolCallId),
        ['call_1', 'call_2'],
      );
      assert.deepStrictEqual(conversation(store, `codex:${CHILD}`), ['user: Message Type: NEW_TASK\nPayload:\n', 'assistant: 3']);
      // The subagent's answer reaches the parent as a message between agents, not as the person's.
      assert.deepStrictEqual(conversation(store, `codex:${PARENT}`), ['user: Ask a helper', 'assistant: It has 3 lines.']);
      assert.deepStrictEqual(
        entries.filter((e) => e.name === 'codex/agent_message').map((e) => (e.payload.data as { author: string }).author),
        ['/root/helper'],
      );
      assert.strictEqual(r.skipped.inter_agent_communication_metadata, 2);
      assert.strictEqual(r.skipped.world_state, 1);
    });

    it('is found once its rollout has its first line: one still being created is looked at again', async () => {
      const parent = write(PARENT, parentRecords());
      const child = write(CHILD, [], '10-00-01');
      const whole = jsonl(childRecords());
      fs.writeFileSync(child, whole.slice(0, 40));
      const ingestion = ingestionOf(parent);
      await ingestion.ingest(store);
      assert.strictEqual(store.headEntryId(`codex:${CHILD}`), 0);
      fs.writeFileSync(child, whole);
      const r = await ingestion.ingest(store);
      assert.deepStrictEqual(r.sessions, [`codex:${PARENT}`, `codex:${CHILD}`]);
      assert.ok(store.headEntryId(`codex:${CHILD}`) > 0);
    });

    it('is not listed on its own: its parent brings it', () => {
      write(PARENT, parentRecords());
      write(CHILD, childRecords(), '10-00-01');
      assert.deepStrictEqual(
        discoverSessions({ workspace: '/w', home }).map((s) => path.basename(s.file)),
        [`rollout-2026-12-01T10-00-00-${PARENT}.jsonl`],
      );
    });
  });

  it('the first prompt a list shows is the tape’s: never the AGENTS.md instructions', async () => {
    const records = [
      c(0, 'session_meta', { id: PARENT, cwd: '/w' }),
      c(1, 'response_item', user('# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>')),
      c(2, 'response_item', user('<b>bold</b> is broken in the preview')),
    ];
    await ingestFile(store, write(PARENT, records));
    assert.deepStrictEqual(conversation(store, `codex:${PARENT}`), ['user: <b>bold</b> is broken in the preview']);
    assert.deepStrictEqual(
      discoverSessions({ workspace: '/w', home }).map((s) => s.firstPrompt),
      ['<b>bold</b> is broken in the preview'],
    );
  });

  describe('a rollout compressed to .jsonl.zst', () => {
    const zst = fs.readdirSync(RECORDED).find((f) => f.endsWith('.zst')) as string;
    const place = (): string => {
      const file = path.join(day, zst);
      fs.copyFileSync(path.join(RECORDED, zst), file);
      return file;
    };

    it('is read whole, once: a second run appends nothing', async () => {
      const file = place();
      const r = await ingestFile(store, file);
      assert.strictEqual(r.format, 'codex');
      assert.ok(r.appended > 0);
      assert.strictEqual((await ingestFile(store, file)).appended, 0);
    });

    it('where its plain file is beside it, the plain one is the session: listed, walked and followed once', () => {
      const file = place();
      fs.writeFileSync(file.slice(0, -'.zst'.length), Buffer.from(decompress(fs.readFileSync(file))));
      const cwd = (JSON.parse(fs.readFileSync(file.slice(0, -'.zst'.length), 'utf8').split('\n')[0]) as { payload: { cwd: string } }).payload.cwd;
      assert.deepStrictEqual(
        sourcesIn(home).sources.map((s) => path.basename(s.source)),
        [path.basename(file, '.zst')],
      );
      // A subagent's rollout: listed with its parent, which is not here.
      assert.deepStrictEqual(discoverSessions({ workspace: cwd, home }), []);
    });

    it('decompresses a chunk at a time, a frame’s blocks across chunks', () => {
      const file = place();
      const whole = Buffer.from(decompress(fs.readFileSync(file)));
      for (const chunk of [1000, 4096, 1 << 20]) assert.ok(readZstdFileSync(file, 1 << 20, 'a transcript', chunk).equals(whole), `${chunk}-byte chunks`);
    });

    it('reads the head a list needs as the first bytes of what the file decompresses to', () => {
      const file = place();
      const whole = Buffer.from(decompress(fs.readFileSync(file)));
      for (const n of [1, 100, whole.length]) assert.ok(readZstdHeadSync(file, n, 1 << 20, 'a transcript').equals(whole.subarray(0, n)), `${n} bytes`);
    });

    it('decompresses within a bound: past it, a clear error and nothing read', () => {
      const file = place();
      const size = fs.statSync(file).size;
      assert.throws(
        () => readZstdFileSync(file, size + 1, 'a transcript'),
        (e: unknown) => e instanceof TapeFileError && /decompresses to over/.test(e.message),
      );
      fs.writeFileSync(file, fs.readFileSync(file).subarray(0, size - 100));
      assert.throws(
        () => readZstdFileSync(file, 1 << 20, 'a transcript'),
        (e: unknown) => e instanceof TapeFileError && /not a whole zstd file/.test(e.message),
      );
    });
  });
});
