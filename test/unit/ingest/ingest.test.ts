import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../src/ingest/ingest';
import { parseTranscript } from '../../../src/ingest/transcriptLines';
import { execFileSync } from 'child_process';
import { claudeCode } from '../../../src/ingest/claudeCode/claudeCode';
import { statusOfOutput } from '../../../src/ingest/codex/codex';
import { TapeFileError } from '../../../src/store/errors';
import { childrenOf, parentOf } from '../../../src/store/forks';
import { readLinked, searchScoped } from '../../../src/store/subagentLinks';
import { TapeStore } from '../../../src/store/tapeStore';
import { auditCompaction } from '../../../src/tape/audit/compactionAudit';
import { MAX_ENTRY_JSON_BYTES } from '../../../src/tape/entrySize';
import { contextItems, cursorOf } from '../../../src/tape/context';
import { foldAll, foldRowOf } from '../../../src/tape/fold';
import { entryHash } from '../../../src/tape/fork';
import { FoldCache } from '../../../src/tape/foldCache';
import { CC_SESSION, ccUser, claudeCodeRecords, claudeCodeSubagent, CODEX_SESSION, codexRecords, jsonl, writeClaudeCode, writeCodex } from './fixtures';
import { conversation, usageOf } from './foldedSession';

/** The conversation a person reads: user prompts and assistant texts, in order. */
function assertPaired(store: TapeStore, sessionId: string): void {
  const view = new FoldCache(store).view(sessionId, { includePending: false });
  assert.ok(view.toolCalls.length > 0);
  for (const call of view.toolCalls) assert.ok(view.toolFacts.get(call.messageId)?.results.has(call.toolCallId), `call ${call.toolCallId} has its result`);
}

describe('ingest', function () {
  this.timeout(20_000);
  let dir: string;
  let store: TapeStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-ingest-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('transcript lines', () => {
    it('reports a last line cut short as torn and leaves it out; a whole record without its newline counts', () => {
      assert.deepStrictEqual(parseTranscript('{"a":1}\n{"b":'), {
        lines: [{ lineNo: 1, record: { a: 1 } }],
        invalidLines: [],
        tornLastLine: true,
        next: { offset: 8, lineNo: 2 },
      });
      assert.deepStrictEqual(parseTranscript('{"a":1}\n{"b":2}'), {
        lines: [
          { lineNo: 1, record: { a: 1 } },
          { lineNo: 2, record: { b: 2 } },
        ],
        invalidLines: [],
        tornLastLine: false,
        next: { offset: 15, lineNo: 2 },
      });
      assert.deepStrictEqual(
        parseTranscript('{"a":1}\n12'),
        { lines: [{ lineNo: 1, record: { a: 1 } }], invalidLines: [], tornLastLine: true, next: { offset: 8, lineNo: 2 } },
        'a number may still be growing',
      );
      assert.deepStrictEqual(parseTranscript('{"a":1}\nnot json\n\n{"b":2}\n'), {
        lines: [
          { lineNo: 1, record: { a: 1 } },
          { lineNo: 4, record: { b: 2 } },
        ],
        invalidLines: [2],
        tornLastLine: false,
        next: { offset: 26, lineNo: 5 },
      });
      assert.deepStrictEqual(
        parseTranscript('{"a":1}\nnot json yet\n\n'),
        { lines: [{ lineNo: 1, record: { a: 1 } }], invalidLines: [], tornLastLine: true, next: { offset: 8, lineNo: 2 } },
        'only blank lines after it',
      );
    });

    it('parses on from a position as the whole text would, line numbers included', () => {
      const text = '{"a":1}\n\n{"b":2}\nnope\n{"c":3}\n{"d":';
      const whole = parseTranscript(text);
      for (let cut = 0; cut <= text.length; cut++) {
        const head = parseTranscript(text.slice(0, cut));
        const rest = parseTranscript(Buffer.from(text).subarray(head.next.offset), head.next);
        assert.deepStrictEqual([...head.lines, ...rest.lines], whole.lines, `cut at ${cut}`);
        assert.deepStrictEqual(rest.next, whole.next, `cut at ${cut}`);
      }
    });

    it('counts a line nested too deep as invalid before JSON.parse sees it, even as the last line', () => {
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      assert.deepStrictEqual(parseTranscript(`{"a":1}\n${deep}\n{"b":2}\n${deep}`), {
        lines: [
          { lineNo: 1, record: { a: 1 } },
          { lineNo: 3, record: { b: 2 } },
        ],
        invalidLines: [2, 4],
        tornLastLine: false,
        next: { offset: 8 + 200_001 + 8 + 200_000, lineNo: 4 },
      });
    });
  });

  describe('lines too large for an entry', () => {
    it('cuts the long strings of a line over the entry limit, with a marker, without decoding it whole; one it cannot cut is invalid', () => {
      const big = `é"\\${'x'.repeat(MAX_ENTRY_JSON_BYTES)}`;
      const line = JSON.stringify({ a: 1, big, small: 'kept whole' });
      // Over a quarter of the limit in strings too short to cut, and a long one: nothing can make it fit.
      const uncuttable = JSON.stringify({ parts: Array(8000).fill('z'.repeat(600)), big });
      const t = parseTranscript(`{"n":1}\n${line}\n${uncuttable}\n{"n":2}\n`);
      assert.deepStrictEqual(t.invalidLines, [3], 'structure alone over the limit: nothing to cut');
      assert.deepStrictEqual(
        t.lines.map((l) => l.lineNo),
        [1, 2, 4],
      );
      const cut = t.lines[1].record as { a: number; big: string; small: string };
      assert.strictEqual(cut.a, 1);
      assert.strictEqual(cut.small, 'kept whole');
      assert.ok(Buffer.byteLength(JSON.stringify(cut)) <= MAX_ENTRY_JSON_BYTES / 4, 'a quarter of the limit at most');
      assert.ok(big.startsWith(cut.big.slice(0, cut.big.indexOf(' [... cut'))), 'what is kept is the start of the text, escapes whole');
      assert.match(cut.big, / \[\.\.\. cut by agent-tape: [\d,]+ of [\d,]+ bytes left out; one entry holds at most 16 MiB\]$/);
    });

    it('a Claude Code message over the entry limit is stored cut, with its marker, and the rest of the session imports', async () => {
      const records = claudeCodeRecords();
      records.splice(2, 0, ccUser('huge', 1, `pasted log ${'y'.repeat(MAX_ENTRY_JSON_BYTES + 1)}`));
      await ingestFile(store, writeClaudeCode(dir, records));
      const users = store.entries(`claude-code:${CC_SESSION}`).filter((e) => e.name === 'message/user');
      const cut = users.map((e) => String(e.payload.content)).find((c) => c.startsWith('pasted log '));
      assert.ok(cut !== undefined && cut.length < MAX_ENTRY_JSON_BYTES / 4);
      assert.match(cut, /cut by agent-tape: [\d,]+ of [\d,]+ bytes left out/);
      const whole = await TapeStore.inMemory();
      await ingestFile(whole, writeClaudeCode(fs.mkdtempSync(path.join(dir, 'w-')), claudeCodeRecords()));
      assert.strictEqual(store.headEntryId(`claude-code:${CC_SESSION}`), whole.headEntryId(`claude-code:${CC_SESSION}`) + 1, 'every other record imported');
      await whole.close();
    });
  });

  describe('files safeRead refuses', () => {
    it('a transcript that is a symbolic link to /dev/zero, or a FIFO, is refused with the reason at once, the tape unchanged', async function () {
      if (process.platform === 'win32') this.skip();
      const zero = path.join(dir, `${CC_SESSION}.jsonl`);
      fs.symlinkSync('/dev/zero', zero);
      await assert.rejects(
        ingestFile(store, zero),
        (e: Error) => e instanceof TapeFileError && /is a character device, not a regular file; refusing to read it/.test(e.message),
      );
      const fifo = path.join(dir, 'fifo.jsonl');
      execFileSync('mkfifo', [fifo]);
      await assert.rejects(ingestFile(store, fifo), (e: Error) => e instanceof TapeFileError && /is a FIFO \(named pipe\), not a regular file/.test(e.message));
      assert.deepStrictEqual(store.sessions(), []);
    });
  });

  describe('crash repair and ingested sessions', () => {
    const parent = `claude-code:${CC_SESSION}`;
    // Lines 1-5 end with the Bash call (toolu_2) still running in Claude Code; line 6 answers toolu_1.
    const running = (): object[] => [...claudeCodeRecords().slice(0, 6), claudeCodeRecords()[6]];

    it('reopening a tape writable appends nothing for a call the other agent is still running; its real result is its one result', async () => {
      const tape = path.join(dir, 't.tape.sqlite');
      const file = writeClaudeCode(dir, running());
      let s = await TapeStore.open(tape);
      await ingestFile(s, file);
      const head = s.headEntryId(parent);
      assert.deepStrictEqual(s.getEntry(parent, 1)?.payload.state, { sessionId: parent, ingestedFrom: 'claude-code' });
      await s.close();
      s = await TapeStore.open(tape);
      try {
        assert.strictEqual(s.openReport.repairedToolCalls, 0);
        assert.strictEqual(s.headEntryId(parent), head, 'nothing appended');
        fs.writeFileSync(file, jsonl(claudeCodeRecords()));
        await ingestFile(s, file);
        const results = s.entries(parent).filter((e) => e.kind === 'tool_result' && e.payload.toolCallId === 'toolu_2');
        assert.deepStrictEqual(
          results.map((e) => [e.payload.status, e.payload.output]),
          [['error', 'exit 1']],
        );
      } finally {
        await s.close();
      }
    });

    it('a session ingested before sessions were marked is told by its provenance keys, and is not repaired either', async () => {
      const tape = path.join(dir, 't.tape.sqlite');
      const file = writeClaudeCode(dir, running());
      let s = await TapeStore.open(tape);
      const mapped = claudeCode.mapper(file).map(parseTranscript(fs.readFileSync(file)).lines, []);
      // What an earlier version wrote: the store's own session/start, then the mapped entries.
      for (const { sessionId, entries } of mapped.sessions) if (entries.length) await s.appendMany(sessionId, entries);
      assert.deepStrictEqual(s.getEntry(parent, 1)?.payload.state, { sessionId: parent });
      const head = s.headEntryId(parent);
      await s.close();
      s = await TapeStore.open(tape);
      try {
        assert.deepStrictEqual([s.openReport.repairedToolCalls, s.headEntryId(parent)], [0, head]);
      } finally {
        await s.close();
      }
    });
  });

  describe('Claude Code', () => {
    const parent = `claude-code:${CC_SESSION}`;
    const child = `${parent}/agent-abc`;

    it('maps a session with its subagent: conversation, tool pairs, thinking, compaction, events, skipped types', async () => {
      const file = writeClaudeCode(dir);
      const r = await ingestFile(store, file);
      assert.strictEqual(r.format, 'claude-code');
      assert.deepStrictEqual(r.sessions, [parent, child]);
      assert.deepStrictEqual(r.skipped, { 'file-history-snapshot': 1, progress: 1, mystery: 1 });
      assert.strictEqual(r.tornLastLine, false);
      // The store writes each new session's session/start anchor on its own.
      assert.strictEqual(r.appended + 2, store.entries(parent).length + store.entries(child).length);

      assert.deepStrictEqual(conversation(store, parent), [
        'user: Fix the failing test',
        "assistant: I'll look at the tests.",
        'assistant: Fixed.',
        'user: Now add docs',
        'assistant: Done with docs.',
      ]);
      assertPaired(store, parent);
      const entries = store.entries(parent);
      const calls = entries.filter((e) => e.kind === 'tool_call');
      assert.deepStrictEqual(
        calls.map((e) => [e.name, e.payload.messageId, e.payload.toolCallId]),
        [
          ['Read', 'msg_1', 'toolu_1'],
          ['Bash', 'msg_1', 'toolu_2'],
          ['Task', 'msg_2', 'toolu_3'],
        ],
      );
      const results = entries.filter((e) => e.kind === 'tool_result');
      assert.deepStrictEqual(
        results.map((e) => [e.name, e.payload.status, e.payload.output]),
        [
          ['Read', 'ok', 'test body'],
          ['Bash', 'error', 'exit 1'],
          ['Task', 'ok', 'Subagent done'],
        ],
      );
      assert.strictEqual(entries.filter((e) => e.name === 'provider/attempt').length, 4, 'one attempt per API message');
      assert.strictEqual(entries.filter((e) => e.name === 'claude-code/thinking').length, 1);

      const anchor = entries.find((e) => e.kind === 'anchor' && e.name.startsWith('compaction/'));
      assert.strictEqual(anchor?.name, 'compaction/manual');
      const state = (anchor?.payload.state ?? {}) as { summary: string; cursorOrderSeq: number };
      assert.strictEqual(state.summary, 'Summary: the test is fixed.');
      assert.strictEqual(state.cursorOrderSeq, 13, 'the boundary line: the prompt after it is past the cursor');
      assert.ok(entries.some((e) => e.name === 'claude-code/system/stop_hook_summary'));

      // The link follows the Task call that started the subagent.
      const taskAt = entries.findIndex((e) => e.kind === 'tool_call' && e.name === 'Task');
      const link = entries[taskAt + 1];
      const childHead = store.headEntryId(child);
      assert.deepStrictEqual(link.payload, {
        name: 'subagent/linked',
        data: {
          childSessionId: child,
          agentId: 'abc',
          toolCallId: 'toolu_3',
          messageId: 'msg_2',
          childHeadEntryId: childHead,
          childHeadHash: entryHash(store.requireEntry(child, childHead)),
          childStartedAt: store.requireEntry(child, 1).createdAt,
        },
      });
      assert.deepStrictEqual(conversation(store, child), ['user: Investigate', 'assistant: Found it.']);
      // Ingested subagents are linked children like the agent's own: readable up to the frozen head, nested under the parent.
      assert.deepStrictEqual(readLinked(store, parent, child), { childSessionId: child, frozenHead: childHead });
      assert.deepStrictEqual(
        childrenOf(store, parent).map((c) => [c.sessionId, c.relation, c.state]),
        [[child, 'subagent', 'linked']],
      );
      assert.deepStrictEqual(parentOf(store, child), { sessionId: parent, relation: 'subagent', at: null });
      assert.ok(searchScoped(store, parent, 'Found', { scope: 'linked', limit: 5 }).some((h) => h.sessionId === child));
      assert.strictEqual(entries[1].createdAt, Date.parse(new Date(Date.UTC(2026, 0, 2, 3, 4, 1)).toISOString()), 'source time kept');
      // What the ingest writes itself carries the source's time too, not the import's.
      assert.strictEqual(entries[0].name, 'session/start');
      assert.strictEqual(entries[0].createdAt, Math.min(...entries.slice(1).map((e) => e.createdAt)), 'the session starts at its first record');
      assert.strictEqual(link.createdAt, entries[taskAt].createdAt, 'the link at its Task call');
      assert.ok(store.requireEntry(child, 1).createdAt < Date.UTC(2027, 0, 1), "the child's start at its first record");
    });

    it('the tokenUsage projection equals the source usage (last usage of each API message), cache reads as cached', async () => {
      await ingestFile(store, writeClaudeCode(dir));
      const expected = (records: object[]) => {
        const last = new Map<string, { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }>();
        for (const r of records as { type: string; message?: { id?: string; usage?: never } }[])
          if (r.type === 'assistant' && r.message?.id) last.set(r.message.id, r.message.usage!);
        const us = [...last.values()];
        const sum = (f: (u: (typeof us)[number]) => number) => us.reduce((a, u) => a + f(u), 0);
        return {
          attempts: us.length,
          // The tape's input counts the cache, which Anthropic's input_tokens leaves out.
          inputTokens: sum((u) => u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens),
          outputTokens: sum((u) => u.output_tokens),
          cachedTokens: sum((u) => u.cache_read_input_tokens),
        };
      };
      assert.deepStrictEqual(usageOf(store, parent), expected(claudeCodeRecords()));
      assert.deepStrictEqual(usageOf(store, parent), { attempts: 4, inputTokens: 1080, outputTokens: 60, cachedTokens: 750 });
      assert.deepStrictEqual(usageOf(store, child), expected(claudeCodeSubagent()));
      const attempt = store.entries(parent).find((e) => e.name === 'provider/attempt');
      assert.deepStrictEqual((attempt?.payload.data as { usage: unknown }).usage, {
        inputTokens: 160,
        outputTokens: 20,
        cachedTokens: 50,
        cacheCreationTokens: 10,
        reasoningTokens: 0,
        inputIncludesCached: true,
        reported: { input: 100, output: 20, cacheRead: 50, cacheWrite: 10 },
      });
    });

    it('re-ingest appends nothing; a grown file appends exactly its new records; a torn last line waits', async () => {
      const records = claudeCodeRecords();
      const file = writeClaudeCode(dir, records.slice(0, 12));
      // The next record is half written.
      fs.appendFileSync(file, JSON.stringify(records[12]).slice(0, 40));
      const first = await ingestFile(store, file);
      assert.strictEqual(first.tornLastLine, true);
      assert.strictEqual((await ingestFile(store, file)).appended, 0);

      fs.writeFileSync(file, jsonl(records));
      const grown = await ingestFile(store, file);
      assert.strictEqual(grown.tornLastLine, false);
      assert.strictEqual((await ingestFile(store, file)).appended, 0);

      const fresh = await TapeStore.inMemory();
      try {
        const whole = await ingestFile(fresh, file);
        assert.strictEqual(first.appended + grown.appended, whole.appended);
        const keys = (s: TapeStore, id: string) => s.entries(id).map((e) => e.provenanceKey);
        for (const id of whole.sessions) assert.deepStrictEqual(keys(store, id).sort(), keys(fresh, id).sort());
        assert.deepStrictEqual(conversation(store, parent), conversation(fresh, parent));
      } finally {
        await fresh.close();
      }
    });

    it('a compaction that keeps the latest messages (preservedSegment) stands only for what came before them: they stay in the context and out of the audit', async () => {
      const u = (uuid: string, i: number, content: unknown) => ({
        type: 'user',
        uuid,
        sessionId: CC_SESSION,
        timestamp: `2026-01-02T03:04:${String(i).padStart(2, '0')}.000Z`,
        message: { role: 'user', content },
      });
      const a = (uuid: string, i: number, block: object) => ({
        type: 'assistant',
        uuid,
        sessionId: CC_SESSION,
        timestamp: `2026-01-02T03:04:${String(i).padStart(2, '0')}.000Z`,
        message: { id: `msg_${uuid}`, role: 'assistant', content: [block] },
      });
      const records = [
        u('u1', 1, 'Rename the parser'),
        a('a1', 2, { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: '/w/src/parser.ts' } }),
        u('r1', 3, [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export class Parser {}' }]),
        u('u2', 4, 'Now run the tests'),
        a('a2', 5, { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'npm test -- --grep lexer' } }),
        u('r2', 6, [{ type: 'tool_result', tool_use_id: 'toolu_2', content: 'ok' }]),
        {
          type: 'system',
          subtype: 'compact_boundary',
          uuid: 'cb',
          sessionId: CC_SESSION,
          timestamp: '2026-01-02T03:04:07.000Z',
          compactMetadata: { trigger: 'manual', preTokens: 9000, preservedSegment: { headUuid: 'u2', anchorUuid: 'cs', tailUuid: 'r2' } },
        },
        { ...u('cs', 8, 'Summary: renamed it.'), isCompactSummary: true },
        u('u3', 9, 'Thanks'),
      ];
      fs.writeFileSync(path.join(dir, `${CC_SESSION}.jsonl`), jsonl(records));
      await ingestFile(store, path.join(dir, `${CC_SESSION}.jsonl`));
      const entries = store.entries(parent);
      const anchor = entries.find((e) => e.name === 'compaction/manual');
      assert.ok(anchor);
      assert.strictEqual((anchor.payload.state as { cursorOrderSeq: number }).cursorOrderSeq, 3, 'covers lines 1-3, before the kept u2');
      const audit = auditCompaction(entries, anchor.entryId);
      assert.deepStrictEqual(audit.facts.map((f) => `${f.kind} ${f.value}`).sort(), ['path /w/src/parser.ts', 'request Rename the parser', 'tool Read']);
      const view = foldAll(entries.map(foldRowOf), { includePending: false });
      const kept = [...contextItems(view, cursorOf(anchor))].flatMap((item) =>
        item.kind === 'message' ? [String(store.requireEntry(parent, item.message.entryId).payload.content)] : [],
      );
      assert.deepStrictEqual(kept, ['Now run the tests', '', 'Thanks']);
    });

    it("what Claude Code writes as the person (a task's notice, an interruption's note, a local command's output) is an event, not a request", async () => {
      const records = [
        ...claudeCodeRecords().slice(0, 3),
        ccUser('n1', 20, '<task-notification>\n<task-id>b1</task-id>\n<status>completed</status>\n</task-notification>'),
        ccUser('n2', 21, [{ type: 'text', text: '[Request interrupted by user for tool use]' }]),
        ccUser('n3', 22, '<local-command-stdout>Compacted</local-command-stdout>'),
        ccUser('n4', 23, '<command-name>/compact</command-name>'),
      ];
      await ingestFile(store, writeClaudeCode(dir, records));
      assert.deepStrictEqual(conversation(store, parent), ['user: Fix the failing test', 'user: <command-name>/compact</command-name>']);
      assert.strictEqual(store.entries(parent).filter((e) => e.name === 'claude-code/meta').length, 3);
      const meta = store.entries(parent).filter((e) => e.name === 'session/meta');
      assert.deepStrictEqual(
        meta.map((e) => e.payload.data),
        [{ agent: 'claude-code', model: 'claude-sonnet-4-5', cwd: '/w', source: path.join(dir, `${CC_SESSION}.jsonl`), title: 'Fix the failing test' }],
      );
    });

    it('a compaction whose preserved head is unknown covers everything before its boundary', async () => {
      const records = claudeCodeRecords().map((r) =>
        (r as { subtype?: string }).subtype === 'compact_boundary'
          ? { ...r, compactMetadata: { trigger: 'auto', preservedSegment: { headUuid: 'nowhere' } } }
          : r,
      );
      const file = writeClaudeCode(dir, records);
      await ingestFile(store, file);
      const anchor = store.entries(parent).find((e) => e.name === 'compaction/auto');
      assert.strictEqual((anchor?.payload.state as { cursorOrderSeq: number }).cursorOrderSeq, 13, 'the boundary line');
    });

    it('a message that grows between runs gets a revision the fold prefers', async () => {
      const records = claudeCodeRecords();
      const file = writeClaudeCode(dir, records.slice(0, 3));
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, parent), ['user: Fix the failing test']);
      fs.writeFileSync(file, jsonl(records.slice(0, 4)));
      await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, parent), ['user: Fix the failing test', "assistant: I'll look at the tests."]);
    });

    it('a record claiming another session is counted as skipped by type and written nowhere', async () => {
      const records = claudeCodeRecords();
      const forged = {
        ...(records[1] as object),
        uuid: 'forged-1',
        sessionId: 'aaaaaaaa-0000-4000-8000-000000000009',
        message: { role: 'user', content: 'run rm -rf /' },
      };
      const file = writeClaudeCode(dir, [...records.slice(0, 2), forged, ...records.slice(2)]);
      const r = await ingestFile(store, file);
      assert.strictEqual(r.skipped['other-session/user'], 1);
      assert.deepStrictEqual(r.sessions, [parent, child]);
      assert.deepStrictEqual(
        store
          .sessions()
          .map((x) => x.sessionId)
          .sort(),
        [parent, child],
      );
      assert.ok(!store.entries(null).some((e) => JSON.stringify(e.payload).includes('rm -rf')), 'the forged record is nowhere on the tape');
      assert.deepStrictEqual(conversation(store, parent)[0], 'user: Fix the failing test');
    });

    it('a file is of the session its name says, whatever its first record claims', async () => {
      const records = claudeCodeRecords().map((r) => ({ ...r, sessionId: 'aaaaaaaa-0000-4000-8000-000000000009' }));
      const r = await ingestFile(store, writeClaudeCode(dir, records));
      assert.deepStrictEqual(r.sessions, [parent, child]);
      assert.strictEqual(
        Object.entries(r.skipped)
          .filter(([t]) => t.startsWith('other-session/'))
          .reduce((n, [, k]) => n + k, 0),
        records.length,
      );
      assert.strictEqual(store.entries(parent).length, 1 + 1, 'its start and the subagent link only');
    });

    it('refuses a file of the other format when --from names one, and one of neither', async () => {
      const file = writeCodex(dir);
      await assert.rejects(ingestFile(store, file, 'claude-code'), /is a Codex transcript, not Claude Code/);
      const other = path.join(dir, 'notes.jsonl');
      fs.writeFileSync(other, '{"hello":"world"}\n');
      await assert.rejects(ingestFile(store, other), /is not a session file of any agent Agent Tape reads \(Claude Code, Codex, /);
    });
  });

  describe('Codex', () => {
    const session = `codex:${CODEX_SESSION}`;

    it('maps a rollout: conversation, tool pairs with exit-code status, reasoning, compaction, meta, skipped types', async () => {
      const r = await ingestFile(store, writeCodex(dir));
      assert.strictEqual(r.format, 'codex');
      assert.deepStrictEqual(r.sessions, [session]);
      assert.deepStrictEqual(r.skipped, { 'event_msg/user_message': 1, 'event_msg/agent_message': 1, 'event_msg/token_count': 1, weird: 1 });
      assert.deepStrictEqual(conversation(store, session), ['user: List files', 'assistant: Two files: a and b.', 'user: thanks']);
      assertPaired(store, session);
      const entries = store.entries(session);
      assert.deepStrictEqual(
        entries.filter((e) => e.kind === 'tool_call').map((e) => [e.name, e.payload.input]),
        [
          ['shell', { command: ['ls'] }],
          ['shell', { command: ['false'] }],
          ['apply_patch', '*** Begin Patch'],
        ],
      );
      assert.deepStrictEqual(
        entries.filter((e) => e.kind === 'tool_result').map((e) => e.payload.status),
        ['ok', 'error', 'ok'],
      );
      const anchor = entries.find((e) => e.name === 'compaction/auto');
      assert.deepStrictEqual(
        [(anchor?.payload.state as { summary: string }).summary, (anchor?.payload.state as { cursorOrderSeq: number }).cursorOrderSeq],
        ['Summary: listed the files.', 14],
      );
      assert.strictEqual(entries.filter((e) => e.name === 'codex/reasoning').length, 1);
      assert.strictEqual(entries.filter((e) => e.name === 'codex/web_search').length, 1);
      const meta = entries.filter((e) => e.name === 'session/meta').map((e) => e.payload.data as { cwd?: string; model?: string });
      assert.deepStrictEqual(
        meta.map((m) => [m.cwd, m.model]),
        [
          ['/w', undefined],
          ['/w', 'gpt-5-codex'],
        ],
      );
      assert.deepStrictEqual(usageOf(store, session), { attempts: 2, inputTokens: 1500, outputTokens: 70, cachedTokens: 900 });
    });

    it('re-ingest appends nothing; a grown file appends exactly the entries of its new records', async () => {
      const records = codexRecords();
      const file = writeCodex(dir, records.slice(0, 9));
      const first = await ingestFile(store, file);
      assert.strictEqual((await ingestFile(store, file)).appended, 0);
      fs.writeFileSync(file, jsonl(records));
      const grown = await ingestFile(store, file);
      const fresh = await TapeStore.inMemory();
      try {
        assert.strictEqual(first.appended + grown.appended, (await ingestFile(fresh, file)).appended);
        assert.deepStrictEqual(conversation(store, session), conversation(fresh, session));
      } finally {
        await fresh.close();
      }
    });

    it('a session_meta naming another session is skipped; the rollout stays in its own session', async () => {
      const records = codexRecords();
      const forged = {
        timestamp: '2026-01-02T03:05:00.000Z',
        type: 'session_meta',
        payload: { id: '019a0000-9999-7222-8333-444455556666', cwd: '/elsewhere' },
      };
      const r = await ingestFile(store, writeCodex(dir, [...records, forged]));
      assert.strictEqual(r.skipped['other-session/session_meta'], 1);
      assert.deepStrictEqual(
        store.sessions().map((x) => x.sessionId),
        [session],
      );
      assert.ok(!store.entries(session).some((e) => (e.payload.data as { cwd?: string } | undefined)?.cwd === '/elsewhere'));
    });

    it("Codex's own context (AGENTS.md, environment) is not a request; a remote compaction's summary is the readable history that replaced the conversation", async () => {
      const c = (i: number, type: string, payload: object) => ({ timestamp: `2026-01-02T03:04:${String(i).padStart(2, '0')}.000Z`, type, payload });
      const userText = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
      const records = [
        c(0, 'session_meta', { id: CODEX_SESSION, cwd: '/w' }),
        c(1, 'response_item', userText('# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nUse pnpm.\n</INSTRUCTIONS>')),
        c(2, 'response_item', userText('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>')),
        c(3, 'response_item', userText('Fix src/app.ts please')),
        c(4, 'response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Fixed.' }] }),
        c(5, 'compacted', {
          message: '',
          replacement_history: [
            userText('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'),
            userText('Fix src/app.ts please'),
            { type: 'compaction', encrypted_content: 'gAAAA' },
          ],
        }),
        c(6, 'response_item', userText('<ENVIRONMENT_CONTEXT><cwd>/w</cwd></ENVIRONMENT_CONTEXT>')),
        c(7, 'response_item', userText('And the tests')),
      ];
      const file = writeCodex(dir, records);
      const r = await ingestFile(store, file);
      assert.deepStrictEqual(conversation(store, session), ['user: Fix src/app.ts please', 'assistant: Fixed.', 'user: And the tests']);
      const entries = store.entries(session);
      assert.strictEqual(entries.filter((e) => e.name === 'codex/context').length, 3);
      const anchor = entries.find((e) => e.name === 'compaction/auto');
      assert.ok(anchor);
      assert.strictEqual((anchor.payload.state as { summary: string }).summary, 'Fix src/app.ts please');
      const audit = auditCompaction(entries, anchor.entryId);
      assert.deepStrictEqual(
        audit.facts.map((f) => [f.kind, f.value, f.inSummary]),
        [['request', 'Fix src/app.ts please', true]],
      );
      assert.strictEqual((await ingestFile(store, file)).appended, 0, 'a second run appends nothing');
      assert.ok(r.appended > 0);
    });

    it("a local compaction's summary is the history that replaced the conversation: the requests Codex kept verbatim, then its summary", async () => {
      const c = (i: number, type: string, payload: object) => ({ timestamp: `2026-01-02T03:04:${String(i).padStart(2, '0')}.000Z`, type, payload });
      const userText = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
      const summary = 'Fixed the null check; the tests are next.';
      const prefixed = `Another language model started to solve this problem and produced a summary of its thinking process.\n${summary}`;
      const records = [
        c(0, 'session_meta', { id: CODEX_SESSION, cwd: '/w' }),
        c(1, 'response_item', userText('Fix src/app.ts please')),
        c(2, 'response_item', userText('Also lib/db.ts')),
        c(3, 'compacted', {
          message: summary,
          replacement_history: [userText('<environment_context>\n  <cwd>/w</cwd>\n</environment_context>'), userText('Also lib/db.ts'), userText(prefixed)],
        }),
        c(4, 'compacted', { message: 'An older rollout: the summary alone.' }),
        c(5, 'compacted', { message: 'Not in its history.', replacement_history: [userText('Kept request')] }),
      ];
      await ingestFile(store, writeCodex(dir, records));
      const entries = store.entries(session);
      const anchors = entries.filter((e) => e.name === 'compaction/auto');
      assert.deepStrictEqual(
        anchors.map((a) => (a.payload.state as { summary: string }).summary),
        [`Also lib/db.ts\n\n${prefixed}`, 'An older rollout: the summary alone.', 'Kept request\n\nNot in its history.'],
      );
      assert.deepStrictEqual(
        auditCompaction(entries, anchors[0]!.entryId).facts.map((f) => [f.kind, f.value, f.inSummary]),
        [
          ['request', 'Fix src/app.ts please', false],
          ['request', 'Also lib/db.ts', true],
        ],
      );
    });

    it('reads the status from the exit code a tool output carries', () => {
      assert.strictEqual(statusOfOutput('{"output":"x","metadata":{"exit_code":2}}'), 'error');
      assert.strictEqual(statusOfOutput('Exit code: 0\nOutput:\nok'), 'ok');
      assert.strictEqual(statusOfOutput('Exit code: 127\n'), 'error');
      assert.strictEqual(statusOfOutput('plain text'), 'ok');
    });
  });
});
