import { SYSTEM_TOOLS } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { AgentSession } from '../../../src/agent/agentSession';
import type { ModelRequest } from '../../../src/agent/model/modelPort';
import { ProviderError } from '../../../src/agent/model/providerError';
import { ScriptedModel, type ScriptedStep } from '../../../src/agent/model/scriptedModel';
import { OpenTape } from '../../../src/agent/session/openTape';
import { RebuildError, type RebuildErrorCode } from '../../../src/rerun/rebuildError';
import { RecordedRequests, rebuildRequest } from '../../../src/rerun/rebuildRequest';
import { CURRENT_REBUILDER, type Rebuilder } from '../../../src/rerun/rebuilder';
import type { Variation } from '../../../src/rerun/variation';
import { verifyTape } from '../../../src/rerun/verify';
import { forkSession } from '../../../src/store/forks';
import { parseJsonl } from '../../../src/store/jsonl';
import { TapeStore, type RawEntry } from '../../../src/store/tapeStore';
import { hashManifest, promptHashOf, sealManifest, toolsHashOf, type ViewManifest } from '../../../src/tape/manifest';
import { reserveFor } from '../../../src/tape/contextPolicy';
import { recordTurns, tapeOf } from './recordedTurns';

const SESSION = 'rerun-me';
const SAMPLING = { temperature: 0.2, seed: 5 };
const FIXTURE_V1 = path.join(__dirname, '..', '..', '..', '..', 'test', 'fixtures', 'tapes', 'inspector-two-requests.tape.jsonl');

/**
 * A turn that reads a file (two requests), then a turn that lists the directory (two more), recorded
 * by the real agent with sampling options.
 */
const record = (dir: string) =>
  recordTurns(
    dir,
    SESSION,
    [
      {
        text: 'Read notes.md',
        steps: [
          [{ text: 'Reading.' }, { toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'notes.md' } } }],
          [{ text: 'It says to build with esbuild.' }],
        ],
      },
      { text: 'List the files', steps: [[{ toolCall: { id: 'c2', name: 'list_dir', arguments: { path: '.' } } }], [{ text: 'One file.' }]] },
    ],
    SAMPLING,
  );

const refused = (code: RebuildErrorCode, pattern: RegExp) => (e: unknown) => e instanceof RebuildError && e.code === code && pattern.test(e.message);

describe('rebuilding a recorded request (re-run core)', function () {
  this.timeout(30_000);
  let dir: string;
  let raws: RawEntry[];
  let sent: ModelRequest[];
  let tape: OpenTape;
  let ids: number[];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-rerun-'));
    ({ raws, sent } = await record(dir));
    tape = await tapeOf(raws);
    ids = new RecordedRequests(tape, SESSION).requestIds();
  });
  after(async () => {
    await tape.store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const entryOf = (id: number) => tape.reader.requireEntry(SESSION, id);
  /** Request 4 (the last): system prompt, both turns' messages, two tool pairs. */
  const last = (variation: Variation = {}) => rebuildRequest(tape, SESSION, ids[3], variation);
  const without = <T>(list: readonly T[], drop: (x: T) => boolean): T[] => list.filter((x) => !drop(x));

  it('lists the session own requests in tape order', () => {
    assert.strictEqual(ids.length, 4);
    assert.strictEqual(sent.length, 4);
    assert.deepStrictEqual(
      ids.map((id) => entryOf(id).name),
      ['view/assembled', 'view/assembled', 'view/assembled', 'view/assembled'],
    );
    assert.ok(ids.every((id, i) => i === 0 || id > ids[i - 1]));
  });

  it('without a variation every request is rebuilt as the model received it: messages, tools and parameters; its promptHash is the recorded one', () => {
    const requests = new RecordedRequests(tape, SESSION);
    ids.forEach((id, i) => {
      const r = requests.rebuild(id);
      assert.deepStrictEqual(r.request, sent[i], `request ${i + 1} is what the scripted model was sent`);
      assert.strictEqual(r.promptHashMatches, true);
      assert.strictEqual(r.toolsHashMatches, true);
      assert.strictEqual(r.difference, null);
      assert.deepStrictEqual(r.notes, []);
      assert.deepStrictEqual(r.manifest.included, r.recorded.included);
      assert.deepStrictEqual(r.manifest.params, r.recorded.params);
      assert.deepStrictEqual(r.recorded.params, { maxOutput: sent[i].maxOutput, ...SAMPLING });
      assert.strictEqual(r.manifest.hashes.promptHash, promptHashOf(sent[i].messages));
      assert.strictEqual(r.manifest.hashes.toolsHash, toolsHashOf(sent[i].tools));
    });
    assert.ok(sent[3].tools.length > 5 && sent[3].messages.length >= 9, 'the last request has the full history and tool set');
  });

  it('another system prompt changes the system message only', () => {
    const r = last({ systemPrompt: 'Be brief.' });
    assert.deepStrictEqual(r.request.messages[0], { role: 'system', content: 'Be brief.' });
    assert.deepStrictEqual(r.request.messages.slice(1), sent[3].messages.slice(1));
    assert.deepStrictEqual({ ...r.request, messages: [] }, { ...sent[3], messages: [] });
    assert.strictEqual(r.promptHashMatches, false);
    assert.strictEqual(r.toolsHashMatches, true);
    assert.ok(r.difference?.what === 'item' && r.difference.position === 1 && r.difference.fields.includes('contentHash'));
  });

  it('tools removed by name and added by definition change the tools only', () => {
    const extra = { name: 'web_fetch', description: 'Fetches a URL', parameters: { type: 'object', properties: { url: { type: 'string' } } } };
    const r = last({ tools: { remove: ['run_command', 'apply_edit'], add: [extra] } });
    assert.deepStrictEqual(r.request.tools, [...without(sent[3].tools, (t) => t.name === 'run_command' || t.name === 'apply_edit'), extra]);
    assert.deepStrictEqual(r.request.messages, sent[3].messages);
    assert.strictEqual(r.promptHashMatches, true);
    assert.strictEqual(r.toolsHashMatches, false);
    assert.strictEqual(r.manifest.hashes.toolsHash, toolsHashOf(r.request.tools));
    // Changed tools are counted by the counter given, the unchanged items as recorded.
    const counted = rebuildRequest(
      tape,
      SESSION,
      ids[3],
      { tools: { remove: ['run_command'] } },
      { countTokens: (input) => (typeof input === 'string' ? 7 : 0) },
    );
    assert.strictEqual(counted.manifest.tokenBudget.estimatedPrompt, 7 + counted.recorded.included.reduce((n, i) => n + i.tokens, 0));
    // Replacing a tool is removing it and adding the new definition.
    const replaced = last({ tools: { remove: ['read_file'], add: [{ ...extra, name: 'read_file' }] } });
    assert.deepStrictEqual(replaced.request.tools.at(-1), { ...extra, name: 'read_file' });
    assert.throws(
      () => last({ tools: { add: [{ ...extra, name: 'read_file' }] } }),
      refused('invalid_variation', /cannot add read_file: the request offers a tool of that name/),
    );
    assert.throws(() => last({ tools: { remove: ['nope'] } }), refused('invalid_variation', /cannot remove nope: not among the request's tools \(read_file, /));
  });

  it('a dropped context item goes with what belongs to it: a tool result with its call, a message with its calls and results', () => {
    const recorded = last().recorded.included;
    const resultItem = recorded.find((i) => i.role === 'tool');
    assert.ok(resultItem?.entryId);
    const noPair = last({ drop: [resultItem.entryId] });
    const c1 = (m: { toolCallId?: string }) => m.toolCallId === 'c1';
    assert.deepStrictEqual(noPair.request.messages, without(sent[3].messages, c1));
    assert.deepStrictEqual(noPair.request.tools, sent[3].tools);
    assert.strictEqual(noPair.promptHashMatches, false);

    const reading = recorded.find((i) => i.role === 'assistant' && entryOf(i.entryId!).payload.content === 'Reading.');
    assert.ok(reading?.entryId);
    const noMessage = last({ drop: [reading.entryId] });
    assert.deepStrictEqual(
      noMessage.request.messages,
      without(sent[3].messages, (m) => c1(m) || (m.role === 'assistant' && m.content === 'Reading.')),
    );

    const prompt = recorded[0];
    assert.strictEqual(prompt.role, 'system');
    assert.deepStrictEqual(last({ drop: [prompt.entryId!] }).request.messages, sent[3].messages.slice(1));
  });

  it('an edited context item is sent with the new text, the rest as recorded', () => {
    const firstUser = last().recorded.included.find((i) => i.role === 'user');
    assert.ok(firstUser?.entryId);
    const r = last({ edit: [{ entryId: firstUser.entryId, content: 'Read notes.md, please' }] });
    const at = sent[3].messages.findIndex((m) => m.role === 'user');
    assert.deepStrictEqual(r.request.messages[at], { role: 'user', content: 'Read notes.md, please' });
    assert.deepStrictEqual(
      r.request.messages.filter((_, i) => i !== at),
      sent[3].messages.filter((_, i) => i !== at),
    );
    assert.ok(r.difference?.what === 'item' && r.difference.position === at + 1);

    const result = last().recorded.included.find((i) => i.role === 'tool');
    const edited = last({ edit: [{ entryId: result!.entryId!, content: 'the notes are empty' }] });
    const resultAt = sent[3].messages.findIndex((m) => m.role === 'tool');
    assert.deepStrictEqual(edited.request.messages[resultAt], { ...sent[3].messages[resultAt], content: 'the notes are empty' });
  });

  it('another budget refits the context (and sends its output cap); the same window sends the same context', () => {
    // The smallest window whose input budget is one token short of the recorded prompt.
    const { estimatedPrompt } = last().recorded.tokenBudget;
    let contextWindow = estimatedPrompt;
    while (contextWindow - 100 - reserveFor(contextWindow) < estimatedPrompt - 1) contextWindow++;
    const small = last({ budget: { contextWindow, maxOutput: 100 } });
    assert.strictEqual(small.request.maxOutput, 100);
    assert.strictEqual(small.manifest.params?.maxOutput, 100);
    assert.ok(small.manifest.excluded.length > 0 && small.manifest.excluded.every((e) => e.reason === 'out_of_budget'), 'history was dropped to fit');
    assert.ok(small.request.messages.length < sent[3].messages.length);
    assert.deepStrictEqual(small.request.messages[0], sent[3].messages[0], 'the system prompt is never dropped');
    assert.deepStrictEqual(small.request.messages.at(-1), sent[3].messages.at(-1));

    const cap = last({ budget: { maxOutput: 321 } });
    assert.deepStrictEqual(cap.request, { ...sent[3], maxOutput: 321 });
    assert.strictEqual(cap.promptHashMatches, true);
  });

  it('a larger budget lets back in what the recording dropped for its budget; the recorded budget drops it again', async () => {
    const sub = path.join(dir, 'trimmed');
    fs.mkdirSync(path.join(sub, 'ws'), { recursive: true });
    fs.writeFileSync(path.join(sub, 'ws', 'big.txt'), `${'0123456789abcdef'.repeat(1_500)}\n`);
    const store = await TapeStore.open(path.join(sub, 't.tape.sqlite'));
    const open = new OpenTape(store);
    const turn = (text: string, responses: ScriptedStep[][], contextWindow: number) =>
      new AgentSession({
        tape: open,
        sessionId: 'trimmed',
        model: new ScriptedModel(responses, { id: 'scripted', vendor: 'test', contextWindow, maxOutput: 1_000 }),
        workspace: path.join(sub, 'ws'),
        permissions: { edits: false, commands: false },
        environment: { os: 'test', shell: '/bin/sh', workspaceRoot: '/workspace', date: '2026-11-30' },
      }).runTurn(text, { signal: new AbortController().signal });
    try {
      await turn('Read big.txt', [[{ toolCall: { id: 'c1', name: 'read_file', arguments: { path: 'big.txt' } } }], [{ text: 'Hex.' }]], 32_000);
      // A window too small for that turn: the compaction fails, so the request drops history to fit.
      assert.strictEqual((await turn('Answer briefly', [[{ error: new ProviderError('bad_response') }], [{ text: 'Short.' }]], 6_000)).outcome, 'answer');
      const requests = new RecordedRequests(open, 'trimmed');
      const lastId = requests.requestIds().at(-1)!;
      const asRecorded = requests.rebuild(lastId);
      assert.ok(asRecorded.recorded.excluded.length > 0, 'the recording dropped history for its budget');
      assert.strictEqual(asRecorded.difference, null);
      const wide = requests.rebuild(lastId, { budget: { contextWindow: 32_000 } });
      assert.deepStrictEqual(wide.manifest.excluded, []);
      assert.ok(wide.request.messages.length > asRecorded.request.messages.length);
      assert.ok(
        wide.request.messages.some((m) => m.role === 'tool' && m.toolCallId === 'c1'),
        'the big result is back',
      );
      // Under a varied budget what the recording dropped is counted afresh (here: 1 token each), not as over the window.
      const counted = new RecordedRequests(open, 'trimmed', { countTokens: () => 1 });
      assert.deepStrictEqual(counted.rebuild(lastId, { budget: { contextWindow: asRecorded.recorded.tokenBudget.contextWindow } }).manifest.excluded, []);
      assert.deepStrictEqual(counted.rebuild(lastId).manifest.excluded, asRecorded.recorded.excluded, 'without a variation it is dropped as recorded');
      const same = requests.rebuild(lastId, { budget: { contextWindow: asRecorded.recorded.tokenBudget.contextWindow } });
      assert.deepStrictEqual(
        same.manifest.excluded.map((e) => e.entryId),
        asRecorded.recorded.excluded.map((e) => e.entryId),
      );
    } finally {
      await store.close();
    }
  });

  it('sampling options over the recorded ones; null takes one out', () => {
    const r = last({ params: { temperature: null, seed: 9, toolChoice: 'required' } });
    assert.deepStrictEqual(r.request, { messages: sent[3].messages, tools: sent[3].tools, maxOutput: sent[3].maxOutput, seed: 9, toolChoice: 'required' });
    assert.deepStrictEqual(r.manifest.params, { maxOutput: sent[3].maxOutput, seed: 9, toolChoice: 'required' });
    assert.strictEqual(r.promptHashMatches, true);
  });

  it('another model is named in the rebuilt manifest; the request is the same', () => {
    const r = last({ model: { vendor: 'other', id: 'm2' } });
    assert.deepStrictEqual(r.manifest.model, { vendor: 'other', id: 'm2' });
    assert.deepStrictEqual(r.request, sent[3]);
    assert.strictEqual(r.difference, null);
  });

  it('another policy version is built by that policy builder; an unknown one cannot be rebuilt', () => {
    // A policy that sends no system prompt: its own name, version and builder on the manifest.
    const v2: Rebuilder = {
      policy: { name: 'tape-context', version: 2 },
      builderVersion: 'test/no-prompt@1',
      rebuild: (folds, facts) => {
        const { request, manifest } = CURRENT_REBUILDER.rebuild(folds, facts);
        const messages = request.messages.filter((m) => m.role !== 'system');
        const { manifestHash: _own, ...hashes } = manifest.hashes;
        return {
          request: { ...request, messages },
          manifest: sealManifest({
            ...manifest,
            policy: { name: 'tape-context', version: 2 },
            builderVersion: 'test/no-prompt@1',
            included: manifest.included.filter((i) => i.role !== 'system'),
            hashes: { ...hashes, promptHash: promptHashOf(messages) },
          }),
        };
      },
    };
    const options = { rebuilders: [CURRENT_REBUILDER, v2] };
    const r = rebuildRequest(tape, SESSION, ids[3], { policy: { name: 'tape-context', version: 2 } }, options);
    assert.deepStrictEqual(r.request.messages, sent[3].messages.slice(1));
    assert.deepStrictEqual(r.manifest.policy, { name: 'tape-context', version: 2 });
    assert.ok(r.difference !== null);
    assert.deepStrictEqual(rebuildRequest(tape, SESSION, ids[3], {}, options).request, sent[3], 'without the variation, the recorded policy');
    assert.throws(
      () => last({ policy: { name: 'tape-context', version: 9 } }),
      refused('cannot_rebuild', /policy tape-context v9 is unknown to this version \(it knows tape-context v1\)/),
    );
  });

  it('one RecordedRequests rebuilds request after request, varied or not, each as a fresh rebuild would', () => {
    const requests = new RecordedRequests(tape, SESSION);
    const drop = { drop: [last().recorded.included[1].entryId!] };
    const runs = [requests.rebuild(ids[3], drop), requests.rebuild(ids[3]), requests.rebuild(ids[1]), requests.rebuild(ids[3], drop), requests.rebuild(ids[2])];
    assert.deepStrictEqual(
      runs.map((r) => r.request),
      [last(drop).request, sent[3], sent[1], last(drop).request, sent[2]],
    );
  });

  it('a fork reads its parent through: a request of the parent rebuilds the same from the fork', async () => {
    const copy = await tapeOf(raws);
    try {
      const { forkSessionId } = await forkSession(copy.store, SESSION, { forkId: 'f' });
      const r = rebuildRequest(copy, forkSessionId, ids[3]);
      assert.deepStrictEqual(r.request, sent[3]);
      assert.strictEqual(r.promptHashMatches, true);
    } finally {
      await copy.store.close();
    }
  });

  it('a version 1 manifest is rebuilt with its budget output cap and the server defaults, and says so', async () => {
    const v1 = raws.map((raw) => {
      if (raw.entryId !== ids[1]) return raw;
      const payload = JSON.parse(raw.payload) as { data: ViewManifest };
      delete payload.data.params;
      payload.data.schemaVersion = 1;
      payload.data.hashes.manifestHash = hashManifest(payload.data);
      return { ...raw, payload: JSON.stringify(payload) };
    });
    const old = await tapeOf(v1);
    try {
      const r = rebuildRequest(old, SESSION, ids[1]);
      assert.strictEqual(r.recorded.schemaVersion, 1);
      assert.strictEqual(r.manifest.schemaVersion, 2);
      const { temperature: _t, seed: _s, ...unsampled } = sent[1];
      assert.deepStrictEqual(r.request, unsampled);
      assert.deepStrictEqual(r.manifest.params, { maxOutput: sent[1].maxOutput });
      assert.strictEqual(r.promptHashMatches, true);
      assert.strictEqual(r.difference, null);
      assert.strictEqual(r.notes.length, 1);
      assert.match(r.notes[0], /schema version 1, which holds no request parameters .*output cap \(\d+\) and the server's defaults/);
    } finally {
      await old.store.close();
    }
  });

  it('refuses, saying why: an unknown session, an entry that is not one of its requests, a malformed variation', () => {
    assert.throws(() => rebuildRequest(tape, 'nope', 1), refused('unknown_session', /the tape has no session "nope"/));
    assert.throws(() => rebuildRequest(tape, SESSION, 9_999), refused('not_a_request', /session rerun-me has no entry #9999 \(its head is #\d+\)/));
    assert.throws(
      () => rebuildRequest(tape, SESSION, 1),
      refused('not_a_request', /entry #1 of session rerun-me is anchor session\/start, not a view\/assembled request/),
    );
    assert.throws(() => last({ systemprompt: 'x' } as Variation), refused('invalid_variation', /Unrecognized key: "systemprompt"/));
    assert.throws(() => last({ drop: [ids[0]] }), refused('invalid_variation', new RegExp(`cannot drop entry #${ids[0]}: it is not in the request's context`)));
    const item = last().recorded.included[1].entryId!;
    assert.throws(() => last({ drop: [item], edit: [{ entryId: item, content: 'x' }] }), refused('invalid_variation', /both dropped and edited/));
    assert.throws(
      () => last({ edit: [{ entryId: 2 * ids[3], content: 'x' }] }),
      refused('invalid_variation', /cannot edit entry #\d+: it is not in request #\d+'s context/),
    );
  });

  it('refuses a request recorded before tool sets were, naming what is missing; verification of it still passes', async () => {
    const fixture = new OpenTape(await TapeStore.inMemory(parseJsonl(fs.readFileSync(FIXTURE_V1, 'utf8'), 'inspector-two-requests.tape.jsonl')));
    try {
      const [session] = fixture.store.sessions();
      const requests = new RecordedRequests(fixture, session.sessionId);
      const [first] = requests.requestIds();
      assert.throws(
        () => requests.rebuild(first),
        refused(
          'tools_not_recorded',
          new RegExp(
            `request #${first} \\(.*\\) cannot be sent again: its tool definitions \\(toolsHash [0-9a-f]{12}…\\) are not on the tape; .*${SYSTEM_TOOLS}`,
          ),
        ),
      );
      assert.strictEqual(verifyTape(fixture, { sessionId: session.sessionId }).ok, true);
    } finally {
      await fixture.store.close();
    }
  });

  it('refuses a tool set or a manifest altered on the tape', async () => {
    const toolsRaw = raws.find((r) => r.name === SYSTEM_TOOLS)!;
    const altered = raws.map((raw) => {
      if (raw !== toolsRaw) return raw;
      const payload = JSON.parse(raw.payload) as { tools: { description: string }[] };
      payload.tools[0].description = 'Deletes files';
      return { ...raw, payload: JSON.stringify(payload) };
    });
    const bad = await tapeOf(altered);
    try {
      assert.throws(
        () => rebuildRequest(bad, SESSION, ids[0]),
        refused('invalid_record', /system\/tools\) was altered: its hash is [0-9a-f]{64}, its tools hash to [0-9a-f]{64}/),
      );
    } finally {
      await bad.store.close();
    }
    const edited = raws.map((raw) => {
      if (raw.entryId !== ids[0]) return raw;
      const payload = JSON.parse(raw.payload) as { data: ViewManifest };
      payload.data.latestEntryId -= 1;
      return { ...raw, payload: JSON.stringify(payload) };
    });
    const worse = await tapeOf(edited);
    try {
      assert.throws(() => rebuildRequest(worse, SESSION, ids[0]), refused('invalid_record', /manifestHash mismatch/));
    } finally {
      await worse.store.close();
    }
    // What the rebuild derives rather than reads (an item's reason, an exclusion): the rebuilt request is the original one, the record still altered.
    for (const alter of [(m: ViewManifest) => (m.included[0].reason = 'trusted'), (m: ViewManifest) => m.excluded.push({ entryId: 1, reason: 'retracted' })]) {
      const quiet = raws.map((raw) => {
        if (raw.entryId !== ids.at(-1)) return raw;
        const payload = JSON.parse(raw.payload) as { data: ViewManifest };
        alter(payload.data);
        return { ...raw, payload: JSON.stringify(payload) };
      });
      const altered = await tapeOf(quiet);
      try {
        assert.throws(() => rebuildRequest(altered, SESSION, ids.at(-1)!), refused('invalid_record', /was altered \(manifestHash mismatch/));
        assert.strictEqual(rebuildRequest(altered, SESSION, ids[0]).promptHashMatches, true, 'the requests before it rebuild');
      } finally {
        await altered.store.close();
      }
    }
  });
});
