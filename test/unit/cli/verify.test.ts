import { VIEW_ASSEMBLED } from '../../../src/tape/entryNames';
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { VerifyReport } from '../../../src/rerun/verify';
import { hashManifest, type ViewManifest } from '../../../src/tape/manifest';
import { runCli } from '../../support/cliProcess';
import { FIXTURE, FIXTURE_SESSION } from '../inspector/fixtureTape';
import { buildCli } from './build';

interface Line {
  sessionId: string;
  entryId: number;
  kind: string;
  name: string;
  payload: Record<string, unknown>;
  meta: Record<string, unknown>;
}

/**
 * `agent-tape verify` on the committed tape the agent loop recorded (two requests, tool calls, a
 * handoff anchor the second request starts from), and on copies of it altered as a JSONL file.
 */
describe('agent-tape verify', function () {
  this.timeout(60_000);
  let dir: string;
  let lines: Line[];

  before(async () => {
    await buildCli();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-tape-verify-cli-'));
    lines = fs
      .readFileSync(FIXTURE, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, altered: readonly Line[]): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, altered.map((l) => `${JSON.stringify(l)}\n`).join(''));
    return file;
  };
  const manifests = (): Line[] => lines.filter((l) => l.name === VIEW_ASSEMBLED);
  const manifestOf = (l: Line): ViewManifest => l.payload.data as ViewManifest;

  it('SPEC 3.13: passes on a tape the agent recorded: one ✓ line per request and a summary, exit 0', async () => {
    const r = await runCli(['verify', FIXTURE]);
    assert.strictEqual(r.code, 0, r.err);
    const checks = r.out.split('\n').filter((l) => l.trim().startsWith('✓'));
    assert.deepStrictEqual(
      checks.map((l) => l.trim()),
      manifests().map((l) => `✓ ${manifestOf(l).turnId}/${manifestOf(l).requestSeq} #${l.entryId} match`),
    );
    assert.match(r.out, /^verified: 2 requests in 1 sessions: 2 match, 0 mismatch, 0 cannot rebuild, 0 integrity problems$/m);

    const json = await runCli(['verify', FIXTURE, '--session', FIXTURE_SESSION, '--json']);
    assert.strictEqual(json.code, 0);
    const report = JSON.parse(json.out) as VerifyReport;
    assert.strictEqual(report.ok, true);
    assert.deepStrictEqual(
      report.sessions.map((s) => s.requests.map((q) => q.status)),
      [['match', 'match']],
    );
  });

  it('SPEC 3.13: an altered builder version fails (exit 1), saying which builder it does not know', async () => {
    const target = manifests()[1];
    const altered = lines.map((l) => {
      if (l !== target) return l;
      const m = structuredClone(manifestOf(l));
      m.builderVersion = 'agent-tape/assemble@0';
      m.hashes.manifestHash = hashManifest(m);
      return { ...l, payload: { ...l.payload, data: m } };
    });
    const r = await runCli(['verify', write('builder.tape.jsonl', altered)]);
    assert.strictEqual(r.code, 1);
    assert.match(r.out, new RegExp(`✗ \\S+/1 #${target.entryId} cannot rebuild: builder agent-tape/assemble@0 is unknown`));
    assert.match(r.out, /^FAILED: 2 requests in 1 sessions: 1 match, 0 mismatch, 1 cannot rebuild, 0 integrity problems$/m);
  });

  it('SPEC 3.13: an altered included entry fails (exit 1), naming the first differing item', async () => {
    const first = manifests()[0];
    const included = manifestOf(first).included;
    const position = included.findIndex((i) => i.role === 'user');
    const user = lines.find((l) => l.entryId === included[position].entryId);
    assert.ok(user);
    const altered = lines.map((l) => (l === user ? { ...l, payload: { ...l.payload, content: 'Something else entirely' } } : l));
    const r = await runCli(['verify', write('entry.tape.jsonl', altered), '--session', FIXTURE_SESSION]);
    assert.strictEqual(r.code, 1);
    assert.match(r.out, new RegExp(`✗ \\S+/1 #${first.entryId} mismatch: item ${position + 1} \\(#${user.entryId} user\\) contentHash differs`));
  });

  it('SPEC 3.12: a manifest edited in the file is flagged by its hash (exit 1)', async () => {
    const target = manifests()[0];
    const altered = lines.map((l) =>
      l === target ? { ...l, payload: { ...l.payload, data: { ...manifestOf(l), tokenBudget: { ...manifestOf(l).tokenBudget, reserve: 1 } } } } : l,
    );
    const r = await runCli(['verify', write('manifest.tape.jsonl', altered), '--json']);
    assert.strictEqual(r.code, 1);
    const report = JSON.parse(r.out) as VerifyReport;
    assert.deepStrictEqual(
      report.sessions[0].integrity.map((p) => [p.check, p.entryId]),
      [['manifest_hash', target.entryId]],
    );
  });

  it('a tape without manifests passes (exit 0) and says there was nothing to verify', async () => {
    const ingested = lines.filter((l) => l.entryId <= 1 || (l.kind === 'message' && l.entryId <= 10)).map((l, i) => ({ ...l, entryId: i + 1 }));
    const r = await runCli(['verify', write('ingested.tape.jsonl', ingested)]);
    assert.strictEqual(r.code, 0, r.err);
    assert.match(r.out, /^no recorded requests \(no view\/assembled manifests\): nothing to verify: 0 requests in 1 sessions/m);
  });

  it('bad usage and unreadable files exit 2', async () => {
    const broken = path.join(dir, 'broken.tape.jsonl');
    fs.writeFileSync(broken, '{"not a tape"\n');
    const cases: [string[], RegExp][] = [
      [['verify'], /expected <tape>/],
      [['verify', FIXTURE, '--bogus'], /unknown option --bogus/],
      [['verify', FIXTURE, '--session', 'nope'], /no session "nope" in this tape/],
      [['verify', path.join(dir, 'missing.tape.sqlite')], /does not exist/],
      [['verify', broken], /broken\.tape\.jsonl:1: not a JSON line/],
    ];
    for (const [argv, pattern] of cases) {
      const r = await runCli(argv);
      assert.strictEqual(r.code, 2, `${argv.join(' ')}: ${r.out}${r.err}`);
      assert.match(r.err, pattern);
    }
  });
});
