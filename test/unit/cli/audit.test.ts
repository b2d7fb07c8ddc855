import * as assert from 'assert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TapeStore } from '../../../src/store/tapeStore';
import type { CompactionAudit } from '../../../src/tape/audit/compactionAudit';
import { claudeCodeRecords, writeClaudeCode, writeCodex } from '../ingest/fixtures';
import { buildCli, cli, CLI } from './build';

const CC_SUMMARY = 'Summary: fixed a.test.ts after `npm test` failed (exit 1). Used Bash.';

describe('agent-tape audit', function () {
  this.timeout(30_000);
  let dir: string;
  let tape: string;
  let ccSession: string;
  let codexSession: string;
  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-audit-cli-'));
    tape = path.join(dir, 'agents.tape.sqlite');
    const src = path.join(dir, 'src');
    // The fixture's summary names a few of its facts, so both answers of the audit show.
    const records = claudeCodeRecords().map((r) => {
      const rec = r as { isCompactSummary?: boolean; message?: object };
      return rec.isCompactSummary ? { ...rec, message: { ...rec.message, content: CC_SUMMARY } } : r;
    });
    fs.mkdirSync(path.join(src, 'claude'), { recursive: true });
    writeClaudeCode(path.join(src, 'claude'), records);
    writeCodex(path.join(src, 'codex'));
    const r = await cli('ingest', src, tape);
    assert.strictEqual(r.code, 0, r.err);

    const s = await TapeStore.open(tape);
    try {
      const ids = s.sessions().map((x) => x.sessionId);
      ccSession = ids.find((id) => id.includes('5b0c1d2e') && !id.includes('/agent-')) ?? assert.fail(ids.join());
      codexSession = ids.find((id) => id.includes('019a0000')) ?? assert.fail(ids.join());
      await s.append('plain', {
        kind: 'message',
        name: 'message/user',
        payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: 'hi' },
      });
      await s.append('ctl', {
        kind: 'message',
        name: 'message/user',
        payload: { messageId: 'u1', role: 'user', status: 'sent', orderSeq: 1, content: 'red \u001b[31malert\u0007 please' },
      });
      await s.append('ctl', {
        kind: 'anchor',
        name: 'compaction/manual',
        payload: { name: 'compaction/manual', state: { summary: 'nothing', cursorOrderSeq: 1, sourceEntryIds: [] } },
      });
    } finally {
      await s.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const auditJson = async (...args: string[]): Promise<CompactionAudit[]> => {
    const r = await cli('audit', tape, ...args, '--json');
    assert.strictEqual(r.code, 0, r.err);
    return JSON.parse(r.out) as CompactionAudit[];
  };

  it('--json audits an ingested Claude Code compaction: the facts before its boundary, matched against its summary', async () => {
    const [a, ...more] = await auditJson('--session', ccSession);
    assert.deepStrictEqual(more, []);
    const got = a.facts.map((f) => `${f.kind} ${f.value} ${f.inSummary}`).sort();
    assert.deepStrictEqual(got, [
      'command npm test true',
      'error exit 1 true',
      'path /w/a.test.ts true',
      'request Fix the failing test false',
      'tool Bash true',
      'tool Read false',
      'tool Task false',
    ]);
    assert.deepStrictEqual(a.totals, {
      path: { facts: 1, inSummary: 1 },
      command: { facts: 1, inSummary: 1 },
      error: { facts: 1, inSummary: 1 },
      request: { facts: 1, inSummary: 0 },
      tool: { facts: 3, inSummary: 1 },
    });
    // Every fact's entries are in the range, before the anchor, and really say it.
    const store = await TapeStore.open(tape, { readOnly: true });
    try {
      const anchor = store.rawEntries(ccSession, { kind: 'anchor' }).find((e) => e.entryId === a.anchorEntryId);
      assert.strictEqual(anchor?.name, 'compaction/manual');
      assert.ok(a.range.from !== null && a.range.to !== null && a.range.to < a.anchorEntryId);
      for (const f of a.facts) {
        for (const id of f.entryIds) {
          assert.ok(id >= a.range.from && id <= a.range.to, `${f.value} at ${id}`);
          const e = store.rawEntries(ccSession, { fromEntryId: id, toEntryId: id })[0];
          assert.ok(JSON.stringify(e.payload).includes(f.value) || e.name === f.value, `${f.value} in entry ${id}`);
        }
      }
      // "Now add docs" comes after the boundary: not in the range.
      assert.ok(!a.facts.some((f) => f.value.includes('docs')));
    } finally {
      await store.close();
    }
  });

  it('--json audits an ingested Codex compaction', async () => {
    const [a] = await auditJson('--session', codexSession);
    assert.deepStrictEqual(a.facts.map((f) => `${f.kind} ${f.value} ${f.inSummary}`).sort(), [
      'command false false',
      'command ls false',
      'error Exit code: 1 false',
      'request List files false',
      'tool shell false',
    ]);
    assert.ok(!a.facts.some((f) => f.value === 'thanks' || f.value === 'apply_patch'), 'nothing after the compaction');
  });

  it('human output: one line of totals per compaction, then the missing facts with their entries; no control characters', async () => {
    const r = await cli('audit', tape, '--session', ccSession);
    assert.strictEqual(r.code, 0, r.err);
    const [a] = await auditJson('--session', ccSession);
    const lines = r.out.trimEnd().split('\n');
    assert.strictEqual(
      lines[0],
      `compaction/manual at entry ${a.anchorEntryId} (entries ${a.range.from}-${a.range.to}): keeps 1 of 1 paths, 1 of 1 commands, 1 of 1 errors, 0 of 1 requests, 1 of 3 tools`,
    );
    const missing = a.facts.filter((f) => !f.inSummary);
    assert.deepStrictEqual(
      lines.slice(1),
      missing.map((f) => `  missing ${f.kind} ${f.value} (entries ${f.entryIds.join(', ')})`),
    );
    const ctl = await cli('audit', tape, '--session', 'ctl');
    assert.strictEqual(ctl.code, 0, ctl.err);
    assert.match(ctl.out, /missing request red \[31malert please \(entries 2\)/);
    assert.doesNotMatch(ctl.out, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('--anchor names one compaction (one object with --json); exit 2 when it is not one or the session has none', async () => {
    const [a] = await auditJson('--session', ccSession);
    const one = await cli('audit', tape, '--session', ccSession, '--anchor', String(a.anchorEntryId), '--json');
    assert.strictEqual(one.code, 0, one.err);
    assert.deepStrictEqual(JSON.parse(one.out), a);

    const notOne = await cli('audit', tape, '--session', ccSession, '--anchor', '1');
    assert.strictEqual(notOne.code, 2);
    assert.strictEqual(notOne.out, '');
    assert.match(notOne.err, new RegExp(`entry 1 is not a compaction anchor; compactions: compaction/manual#${a.anchorEntryId}`));

    const none = await cli('audit', tape, '--session', 'plain', '--json');
    assert.strictEqual(none.code, 2);
    assert.strictEqual(none.out, '');
    assert.match(none.err, /session "plain" has no compaction/);

    const unknown = await cli('audit', tape, '--session', 'nope');
    assert.strictEqual(unknown.code, 2);
    assert.match(unknown.err, /no session "nope"/);
  });

  it('the bundled CLI prints the same audit and names the command in its help', async () => {
    const bundled = spawnSync(process.execPath, [CLI, 'audit', tape, '--session', codexSession, '--json'], { encoding: 'utf8' });
    assert.strictEqual(bundled.status, 0, bundled.stderr);
    assert.deepStrictEqual(JSON.parse(bundled.stdout), await auditJson('--session', codexSession));
    const none = spawnSync(process.execPath, [CLI, 'audit', tape, '--session', 'plain'], { encoding: 'utf8' });
    assert.strictEqual(none.status, 2);
    assert.match(none.stderr, /has no compaction/);
    const h = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
    assert.match(h.stdout, /audit <tape> --session S \[--anchor ENTRY\] \[--json\]/);
  });
});
