import { SUBAGENT_LINKED, ATTEMPT_EVENT } from '../../../../src/tape/entryNames';
import * as assert from 'assert';
import Database from 'better-sqlite3';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ingestFile } from '../../../../src/ingest/ingest';
import { loadSqlJs } from '../../../../src/store/sqljs';
import { TapeStore } from '../../../../src/store/tapeStore';
import type { Entry } from '../../../../src/tape/entry';
import { calls } from '../foldedSession';

/**
 * The sessions opencode 1.18.33 wrote (test/fixtures/agents/opencode-1.18.33, recorded by
 * scripts/record-agents/opencode.mjs) ingested, against what a plain read of its database finds.
 */

const FIXTURE = path.join(__dirname, '..', '..', '..', '..', '..', 'test', 'fixtures', 'agents', 'opencode-1.18.33', 'opencode.db');

interface Row {
  id: string;
  session_id: string;
  data: string;
}
interface Tokens {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

/** The fixture as plain rows: each message's and part's JSON, by session. */
function plainRead(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const sessions = db.prepare('SELECT id, parent_id FROM session').all() as { id: string; parent_id: string | null }[];
    const messages = (db.prepare('SELECT id, session_id, data FROM message').all() as Row[]).map((r) => ({
      ...r,
      info: JSON.parse(r.data) as Record<string, unknown>,
    }));
    const parts = (db.prepare('SELECT id, session_id, message_id, data FROM part').all() as (Row & { message_id: string })[]).map((r) => ({
      ...r,
      part: JSON.parse(r.data) as Record<string, unknown>,
    }));
    return { sessions, messages, parts };
  } finally {
    db.close();
  }
}

describe('ingest: opencode 1.18.33 as it writes its sessions (recorded)', () => {
  let dir: string;
  let store: TapeStore;
  before(() => loadSqlJs());
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-rec-opencode-'));
    store = await TapeStore.inMemory();
  });
  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('maps every prompt, answer, call with its result, subagent, compaction and token of the recording', async () => {
    const db = path.join(dir, 'opencode.db');
    fs.copyFileSync(FIXTURE, db);
    const raw = plainRead(db);
    const report = await ingestFile(store, db);
    const all = (name: string): Entry[] => report.sessions.flatMap((s) => store.entries(s).filter((e) => e.name === name));

    assert.deepStrictEqual([...report.sessions].sort(), raw.sessions.map((s) => `opencode:${s.id}`).sort());
    const partsOf = (messageId: string) => raw.parts.filter((p) => p.message_id === messageId).map((p) => p.part);
    // A prompt is a user message with text opencode did not write itself.
    const typed = raw.messages.filter((m) => m.info.role === 'user' && partsOf(m.id).some((p) => p.type === 'text' && p.synthetic !== true));
    assert.deepStrictEqual(
      all('message/user')
        .map((e) => e.payload.messageId)
        .sort(),
      typed.map((m) => m.id).sort(),
    );
    assert.ok(
      all('message/user').some((e) => e.payload.content === '"Read a.txt and change hello to howdy"'),
      'the scripted prompt, as opencode run quoted it',
    );
    const synthetic = raw.parts.filter((p) => p.part.type === 'text' && p.part.synthetic === true);
    assert.ok(synthetic.some((p) => String(p.part.text).startsWith('Continue if you have next steps')));
    for (const p of synthetic) assert.ok(!all('message/user').some((e) => e.payload.messageId === p.message_id), 'the synthetic "Continue" is no prompt');

    const answers = raw.messages.filter((m) => m.info.role === 'assistant' && m.info.summary !== true);
    assert.strictEqual(all('message/assistant').length, answers.length);

    const toolParts = raw.parts.filter((p) => p.part.type === 'tool');
    const paired = report.sessions.flatMap((s) => calls(store, s));
    assert.deepStrictEqual(paired.map(([id]) => id).sort(), toolParts.map((p) => String(p.part.callID)).sort());
    assert.deepStrictEqual([...new Set(paired.map(([, name]) => name))].sort(), ['edit', 'read', 'bash', 'task'].sort());

    for (const child of raw.sessions.filter((s) => s.parent_id !== null)) {
      const task = toolParts.find(
        (p) => p.session_id === child.parent_id && (p.part.state as { metadata?: { sessionId?: string } }).metadata?.sessionId === child.id,
      );
      assert.ok(task, 'the subagent was spawned by a task call');
      const links = store.entries(`opencode:${child.parent_id}`).filter((e) => e.name === SUBAGENT_LINKED);
      assert.deepStrictEqual(
        links.map((e) => [(e.payload.data as Record<string, unknown>).childSessionId, (e.payload.data as Record<string, unknown>).toolCallId]),
        [[`opencode:${child.id}`, task.part.callID]],
      );
    }

    const compactions = raw.parts.filter((p) => p.part.type === 'compaction');
    assert.strictEqual(compactions.length, 1);
    const anchors = report.sessions.flatMap((s) => store.entries(s).filter((e) => e.kind === 'anchor' && e.name.startsWith('compaction/')));
    assert.deepStrictEqual(
      anchors.map((e) => e.name),
      ['compaction/auto'],
    );
    assert.match(String((anchors[0].payload.state as Record<string, unknown>).summary), /it says "see you"/);

    // opencode writes input without the cached tokens and output without the reasoning ones.
    const steps = raw.parts.filter((p) => p.part.type === 'step-finish').map((p) => p.part.tokens as Tokens);
    const want = {
      inputTokens: steps.reduce((n, t) => n + t.input + t.cache.read + t.cache.write, 0),
      cachedTokens: steps.reduce((n, t) => n + t.cache.read, 0),
      outputTokens: steps.reduce((n, t) => n + t.output + t.reasoning, 0),
      reasoningTokens: steps.reduce((n, t) => n + t.reasoning, 0),
    };
    const attempts = all(ATTEMPT_EVENT).map((e) => (e.payload.data as { usage: Record<string, number> }).usage);
    assert.strictEqual(attempts.length, steps.length);
    const sum = (k: string): number => attempts.reduce((n, u) => n + (u[k] ?? 0), 0);
    assert.deepStrictEqual(
      { inputTokens: sum('inputTokens'), cachedTokens: sum('cachedTokens'), outputTokens: sum('outputTokens'), reasoningTokens: sum('reasoningTokens') },
      want,
    );
    assert.ok(want.cachedTokens > 0 && want.reasoningTokens > 0 && want.cachedTokens !== want.reasoningTokens);
    // The compaction's request: the server reported 7,900 prompt tokens (7446 + 454 cached) and 82 out (49 + 33 reasoning).
    assert.ok(attempts.some((u) => u.inputTokens === 7900 && u.cachedTokens === 454 && u.outputTokens === 82 && u.reasoningTokens === 33));
  });
});
