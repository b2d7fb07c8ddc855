import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import type { NewEntry } from '../../../src/tape/entry';
import type { UsageRow } from '../../../src/tape/usage/usageStats';
import { writeClaudeCode } from '../ingest/fixtures';
import { cli } from './build';

const DAY1 = Date.UTC(2026, 11, 1, 23, 59);
const DAY2 = Date.UTC(2026, 11, 2, 0, 1);
const attempt = (at: number, input: number, output: number, cached: number): NewEntry => ({
  kind: 'event',
  name: 'provider/attempt',
  payload: { name: 'provider/attempt', data: { usage: { inputTokens: input, outputTokens: output, cachedTokens: cached } } },
  createdAt: at,
});

describe('agent-tape stats', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-stats-'));
    tape = path.join(dir, 'all.tape.sqlite');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("requests and tokens per agent and UTC day, then per agent; a fork counts only its own attempts; an ingested session is its agent's", async () => {
    const empty = await TapeStore.open(tape);
    await empty.close();
    const none = await cli('stats', tape);
    assert.deepStrictEqual([none.code, none.out], [0, 'no model requests recorded on this tape\n']);

    const s = await TapeStore.open(tape);
    await s.appendMany('mine', [attempt(DAY1, 100, 10, 40), attempt(DAY2, 200, 20, 0)]);
    await s.close();
    assert.strictEqual((await cli('fork', tape, '--session', 'mine', '--id', 'alt')).code, 0);
    const t = await TapeStore.open(tape);
    await t.append('mine::fork::alt', attempt(DAY2, 5, 1, 0));
    await t.close();
    const ingested = await cli('ingest', writeClaudeCode(dir), tape);
    assert.strictEqual(ingested.code, 0, ingested.err);

    const r = await cli('stats', tape, '--json');
    assert.strictEqual(r.code, 0, r.err);
    const stats = JSON.parse(r.out) as { rows: UsageRow[]; totals: UsageRow[] };
    const mine = stats.rows.filter((row) => row.agent === 'agent-tape');
    assert.deepStrictEqual(mine, [
      { agent: 'agent-tape', day: '2026-12-01', sessions: 1, requests: 1, inputTokens: 100, outputTokens: 10, cachedTokens: 40 },
      { agent: 'agent-tape', day: '2026-12-02', sessions: 2, requests: 2, inputTokens: 205, outputTokens: 21, cachedTokens: 0 },
    ]);
    const claude = stats.totals.find((row) => row.agent === 'claude-code');
    assert.ok(claude && claude.requests > 0 && claude.inputTokens > 0, r.out);
    // The totals add up the rows of each agent.
    for (const total of stats.totals) {
      const of = stats.rows.filter((row) => row.agent === total.agent);
      assert.strictEqual(
        total.requests,
        of.reduce((n, row) => n + row.requests, 0),
      );
      assert.strictEqual(
        total.inputTokens,
        of.reduce((n, row) => n + row.inputTokens, 0),
      );
      assert.strictEqual(total.day, 'all');
    }

    const text = await cli('stats', tape);
    assert.match(text.out, /^2026-12-01 {2}agent-tape: 1 session, 1 request, 100 in \(40 cached\), 10 out$/m);
    assert.match(text.out, /^in all:\n/m);
    assert.match(text.out, /^ {2}agent-tape: 2 sessions, 3 requests, 305 in \(40 cached\), 31 out$/m);
  });
});
