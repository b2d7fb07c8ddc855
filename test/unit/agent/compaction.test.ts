import * as assert from 'assert';
import { compactionRequest, parseCompactionAnswer, renderSummary, shouldAutoCompact } from '../../../src/agent/compaction';
import { compact } from '../../../src/agent/compactor';
import { OpenTape } from '../../../src/agent/session/openTape';
import { ProviderError } from '../../../src/agent/model/providerError';
import { ScriptedModel } from '../../../src/agent/model/scriptedModel';
import type { TapeStore } from '../../../src/store/tapeStore';
import { compactionAnchorEntry, coverageOf } from '../../../src/tape/compactionAnchor';
import { contextFrom, contextItems } from '../../../src/tape/context';
import { TapeValidationError } from '../../../src/tape/entry';
import { FoldCache } from '../../../src/tape/foldCache';
import { handoffAnchorEntry } from '../../../src/tape/handoffAnchor';
import { assistant, demoStore, user } from './tapeToolPort/fixture';

const MODEL = { id: 'm1', vendor: 'test', contextWindow: 32_000, maxOutput: 8_000 };
const JSON_ANSWER = '{"goal":"Fix the DB timeout","decisions":["raise timeoutMs to 5000"],"filesTouched":["src/db.ts"],"openWork":["run the tests"]}';

const entryOf = (store: TapeStore) => (id: number) => store.requireEntry('s1', id);

describe('compaction (domain)', () => {
  it('the summary request carries the instructions and the conversation as a transcript, without the agent prompt', () => {
    const req = compactionRequest(
      [
        { role: 'system', content: 'AGENT PROMPT' },
        { role: 'user', content: 'Fix it' },
        { role: 'assistant', content: '{"path":"a.ts"}', toolName: 'read_file' },
        { role: 'tool', content: 'x'.repeat(10_000), toolName: 'read_file' },
      ],
      MODEL,
    );
    assert.deepStrictEqual(req.tools, []);
    assert.strictEqual(req.maxOutput, 2048);
    assert.deepStrictEqual(
      req.messages.map((m) => m.role),
      ['system', 'user'],
    );
    assert.match(req.messages[0].content, /"goal".*\n.*"decisions".*\n.*"filesTouched".*\n.*"commands".*\n.*"errors".*\n.*"openWork"/);
    const body = req.messages[1].content;
    assert.doesNotMatch(body, /AGENT PROMPT/);
    assert.match(
      body,
      /\[user\]\nFix it\n\n\[assistant calls read_file\]\n\{"path":"a\.ts"\}\n\n\[tool result read_file\]\nx{2000}\n\[… 6000 characters left out …\]\nx{2000}\n/,
    );
    assert.strictEqual(compactionRequest([], { ...MODEL, maxOutput: 500 }).maxOutput, 500);
  });

  it('parses JSON, fenced JSON and JSON inside prose; plain text is the summary itself; blank is null', () => {
    const structured = {
      kind: 'structured',
      summary: {
        goal: 'Fix the DB timeout',
        decisions: ['raise timeoutMs to 5000'],
        filesTouched: ['src/db.ts'],
        commands: [],
        errors: [],
        openWork: ['run the tests'],
      },
    };
    assert.deepStrictEqual(parseCompactionAnswer(JSON_ANSWER), structured);
    assert.deepStrictEqual(parseCompactionAnswer(`Here you go:\n\`\`\`json\n${JSON_ANSWER}\n\`\`\`\n`), structured);
    assert.deepStrictEqual(parseCompactionAnswer(`Summary: ${JSON_ANSWER} hope that helps`), structured);
    assert.deepStrictEqual(parseCompactionAnswer('The user wants the timeout fixed.\nDone: raised it.'), {
      kind: 'text',
      text: 'The user wants the timeout fixed.\nDone: raised it.',
    });
    assert.strictEqual(parseCompactionAnswer('  \n'), null);
  });

  it('tolerates sloppy JSON: snake_case keys, a string for a list, missing parts; JSON of another shape is text', () => {
    assert.deepStrictEqual(parseCompactionAnswer('{"goal":["a","b"],"files_touched":"x.ts","errors":"E1","open_work":[1]}'), {
      kind: 'structured',
      summary: { goal: 'a; b', decisions: [], filesTouched: ['x.ts'], commands: [], errors: ['E1'], openWork: ['1'] },
    });
    assert.deepStrictEqual(parseCompactionAnswer('{"answer":42}'), { kind: 'text', text: '{"answer":42}' });
    assert.deepStrictEqual(parseCompactionAnswer('[1,2]'), { kind: 'text', text: '[1,2]' });
  });

  it('renders a structured summary as sections', () => {
    const parsed = parseCompactionAnswer('{"goal":"G","decisions":["d1","d2"],"openWork":[]}');
    assert.ok(parsed);
    assert.strictEqual(renderSummary(parsed), 'Goal: G\nDecisions:\n- d1\n- d2\nFiles touched: (none)\nOpen work: (none)');
    const full = parseCompactionAnswer('{"goal":"G","commands":["npm test: 2 failed"],"errors":["TS2322 in a.ts, fixed"]}');
    assert.ok(full);
    assert.strictEqual(
      renderSummary(full),
      'Goal: G\nDecisions: (none)\nFiles touched: (none)\nCommands run:\n- npm test: 2 failed\nErrors:\n- TS2322 in a.ts, fixed\nOpen work: (none)',
    );
    assert.strictEqual(renderSummary({ kind: 'text', text: 'plain' }), 'plain');
  });

  it('the anchor is compaction/<trigger> with {summary, cursorOrderSeq, sourceEntryIds, model, usage} and passes the tape validation', async () => {
    const entry = compactionAnchorEntry({
      trigger: 'auto',
      summary: 'S',
      cursorOrderSeq: 3,
      sourceEntryIds: [3, 4],
      model: MODEL,
      usage: { inputTokens: 100, outputTokens: 20, estimated: false, cachedInputTokens: undefined },
    });
    assert.deepStrictEqual(entry, {
      kind: 'anchor',
      name: 'compaction/auto',
      payload: {
        name: 'compaction/auto',
        state: {
          summary: 'S',
          cursorOrderSeq: 3,
          sourceEntryIds: [3, 4],
          model: { id: 'm1', vendor: 'test' },
          usage: { inputTokens: 100, outputTokens: 20, estimated: false },
        },
      },
    });
    const store = await demoStore();
    assert.strictEqual((await store.append('s1', entry)).entry.entryId, 8);
    await store.close();
  });

  it('coverage: the last orderSeq and the entry ids of the messages, calls and results summarised', async () => {
    const store = await demoStore();
    const view = new FoldCache(store).view('s1', { includePending: false });
    assert.deepStrictEqual(coverageOf(contextItems(view, null)), { cursorOrderSeq: 3, sourceEntryIds: [3, 4, 5, 6, 7] });
    assert.strictEqual(coverageOf(contextItems(view, { orderSeq: 3 })), null);
    await store.close();
  });

  it("contextFrom starts at a compaction anchor's cursor and shows the later messages", async () => {
    const store = await demoStore();
    await store.append(
      's1',
      compactionAnchorEntry({ trigger: 'manual', summary: 'Goal: fix the DB', cursorOrderSeq: 2, sourceEntryIds: [3, 4, 5, 6], model: MODEL }),
    );
    await store.append('s1', user('u2', 4, 'thanks'));
    const ctx = contextFrom(new FoldCache(store), 's1', { kind: 'last' }, entryOf(store));
    assert.strictEqual(ctx.anchorEntryId, 8);
    // orderSeq 3 (entry 7) is after the cursor even though it was written before the anchor.
    assert.deepStrictEqual(
      ctx.messages.map((m) => [m.role, m.entryId]),
      [
        ['system', 2],
        ['user', null],
        ['assistant', 7],
        ['user', 9],
      ],
    );
    assert.strictEqual(
      ctx.messages[1].content,
      '[Checkpoint compaction/manual at entry 8: the conversation before this point is summarised here.]\n\nGoal: fix the DB',
    );
    await store.close();
  });

  it('auto compaction triggers at the share of the input budget (default 80%)', () => {
    assert.strictEqual(shouldAutoCompact(799, 1000), false);
    assert.strictEqual(shouldAutoCompact(800, 1000), true);
    assert.strictEqual(shouldAutoCompact(500, 1000, 0.5), true);
    assert.strictEqual(shouldAutoCompact(10, 0), false);
    assert.throws(() => shouldAutoCompact(1, 1000, 0), RangeError);
    assert.throws(() => shouldAutoCompact(1, 1000, 1.5), RangeError);
  });

  it('handoff anchors nest the state under {summary, state} and refuse bad names or an empty summary', () => {
    assert.deepStrictEqual(handoffAnchorEntry('next-step', ' go on ', { cursorOrderSeq: 99 }), {
      kind: 'anchor',
      name: 'handoff/next-step',
      payload: { name: 'handoff/next-step', state: { summary: 'go on', state: { cursorOrderSeq: 99 } } },
    });
    assert.deepStrictEqual(handoffAnchorEntry('a1', 's').payload, { name: 'handoff/a1', state: { summary: 's' } });
    assert.throws(
      () => handoffAnchorEntry('Next', 's'),
      (e: unknown) => e instanceof TapeValidationError && /handoff name "Next": ✖ use lowercase words/.test(e.message),
    );
    assert.throws(() => handoffAnchorEntry('ok', ' '), /non-empty summary/);
  });
});

describe('compact (compactor)', () => {
  let store: TapeStore;
  beforeEach(async () => (store = await demoStore()));
  afterEach(() => store.close());
  const signal = new AbortController().signal;

  it('asks the model, appends one compaction anchor, and the next context starts from it', async () => {
    const model = new ScriptedModel(
      [[{ text: '```json\n' }, { text: JSON_ANSWER }, { text: '\n```' }, { usage: { inputTokens: 120, outputTokens: 30 } }]],
      MODEL,
    );
    const out = await compact(new OpenTape(store), 's1', model, { trigger: 'manual', signal });
    assert.ok('anchor' in out, JSON.stringify(out));
    assert.strictEqual(out.anchor.entryId, 8);
    assert.strictEqual(out.anchor.name, 'compaction/manual');
    assert.deepStrictEqual(out.anchor.payload.state, {
      summary: 'Goal: Fix the DB timeout\nDecisions:\n- raise timeoutMs to 5000\nFiles touched:\n- src/db.ts\nOpen work:\n- run the tests',
      cursorOrderSeq: 3,
      sourceEntryIds: [3, 4, 5, 6, 7],
      model: { id: 'm1', vendor: 'test' },
      usage: { inputTokens: 120, outputTokens: 30, estimated: false },
      // The one fact of the range the summary does not mention (a tool name alone is not listed).
      alsoInRange: [{ kind: 'request', value: 'Fix the database connection timeout', entryIds: [3] }],
    });
    assert.strictEqual(out.audit.anchorEntryId, 8);
    assert.deepStrictEqual(out.audit.totals.request, { facts: 1, inSummary: 0 });
    assert.deepStrictEqual(out.audit.totals.path, { facts: 1, inSummary: 1 });
    assert.strictEqual(model.requests.length, 1);
    assert.match(model.requests[0].messages[1].content, /Fix the database connection timeout[\s\S]*export const timeoutMs = 10;/);
    // Nothing is deleted: every entry is still on the tape.
    assert.strictEqual(store.entries('s1').length, 8);

    await store.append('s1', user('u2', 4, 'run the tests'));
    const ctx = contextFrom(new FoldCache(store), 's1', { kind: 'last' }, entryOf(store));
    assert.strictEqual(ctx.anchorEntryId, 8);
    assert.deepStrictEqual(
      ctx.messages.map((m) => [m.role, m.source]),
      [
        ['system', 'tape'],
        ['user', 'synthetic'],
        ['user', 'tape'],
      ],
    );
    assert.match(ctx.messages[1].content, /^\[Checkpoint compaction\/manual at entry 8: .*\]\n\nGoal: Fix the DB timeout\n/);
    assert.match(ctx.messages[1].content, /\n\nAlso in this range \(not in the summary[^\n]*\n- request: Fix the database connection timeout \(entry 3\)$/);
  });

  it('a second compaction summarises the first checkpoint and what came after it', async () => {
    await compact(new OpenTape(store), 's1', new ScriptedModel([[{ text: 'first summary' }]], MODEL), { trigger: 'auto', signal });
    await store.appendMany('s1', [user('u2', 4, 'next'), assistant('a3', 5, 'done')]);
    const model = new ScriptedModel([[{ text: 'second summary' }]], MODEL);
    const out = await compact(new OpenTape(store), 's1', model, { trigger: 'auto', signal });
    assert.ok('anchor' in out);
    assert.deepStrictEqual(
      [out.anchor.name, out.anchor.payload.state],
      [
        'compaction/auto',
        {
          summary: 'second summary',
          cursorOrderSeq: 5,
          sourceEntryIds: [9, 10],
          model: { id: 'm1', vendor: 'test' },
          alsoInRange: [{ kind: 'request', value: 'next', entryIds: [9] }],
        },
      ],
    );
    assert.match(
      model.requests[0].messages[1].content,
      /\[Checkpoint compaction\/auto at entry 8[^\n]*\n\nfirst summary\n\nAlso in this range[^\n]*\n- path: src\/db\.ts \(entry 5\)\n- request: Fix the database connection timeout \(entry 3\)\n\n\[user\]\nnext\n\n\[assistant\]\ndone/,
    );
  });

  it('a failing model appends an error/provider entry and no anchor', async () => {
    const model = new ScriptedModel([[{ text: '{"goal":' }, { error: new ProviderError('server', { status: 503, detail: 'overloaded' }) }]], MODEL);
    const out = await compact(new OpenTape(store), 's1', model, { trigger: 'auto', signal });
    assert.ok('error' in out);
    assert.match(out.error, /^compaction \(auto\) failed: The model server failed \(HTTP 503\): overloaded$/);
    const added = store.entries('s1', { fromEntryId: 8 });
    assert.deepStrictEqual(
      added.map((e) => [e.kind, e.name, e.payload]),
      [
        [
          'error',
          'error/provider',
          { kind: 'provider', message: out.error, details: { operation: 'compaction', trigger: 'auto', failureClass: 'server', status: 503 } },
        ],
      ],
    );
    assert.strictEqual(store.entries('s1', { kind: 'anchor' }).length, 1);
  });

  it('an empty answer is a provider failure; a cancel and an empty history write nothing', async () => {
    const empty = await compact(new OpenTape(store), 's1', new ScriptedModel([[{ text: ' ' }]], MODEL), { trigger: 'manual', signal });
    assert.ok('error' in empty);
    assert.match(empty.error, /the summary was empty/);
    assert.strictEqual(store.getEntry('s1', 8)?.name, 'error/provider');

    const controller = new AbortController();
    controller.abort();
    const cancelled = await compact(new OpenTape(store), 's1', new ScriptedModel([[{ text: 'x' }]], MODEL), { trigger: 'manual', signal: controller.signal });
    assert.deepStrictEqual(cancelled, { error: 'compaction cancelled' });
    assert.strictEqual(store.headEntryId('s1'), 8);

    const model = new ScriptedModel([], MODEL);
    assert.deepStrictEqual(await compact(new OpenTape(store), 'fresh', model, { trigger: 'manual', signal }), {
      error: 'nothing to compact: no message after the anchor in force',
    });
    assert.strictEqual(model.requests.length, 0);
    assert.strictEqual(store.headEntryId('fresh'), 0);
  });
});
