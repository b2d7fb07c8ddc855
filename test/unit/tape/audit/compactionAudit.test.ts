import * as assert from 'assert';
import {
  auditCompaction,
  auditCompactions,
  CompactionAuditError,
  compactionAnchors,
  FACT_KINDS,
  type AuditFact,
  type CompactionAudit,
} from '../../../../src/tape/audit/compactionAudit';
import { compactionAnchorEntry, coverageOf } from '../../../../src/tape/compactionAnchor';
import { contextItems } from '../../../../src/tape/context';
import type { Entry } from '../../../../src/tape/entry';
import { foldAll } from '../../../../src/tape/fold';
import { TapeBuilder } from '../tapeBuilder';

const compaction = (t: TapeBuilder, summary: string, cursorOrderSeq: number, trigger = 'auto'): Entry =>
  t.anchor(`compaction/${trigger}`, { summary, cursorOrderSeq, sourceEntryIds: [] });

const fact = (a: CompactionAudit, kind: AuditFact['kind'], value: string): AuditFact | undefined => a.facts.find((f) => f.kind === kind && f.value === value);

function assertTotalsAddUp(a: CompactionAudit): void {
  let facts = 0;
  for (const k of FACT_KINDS) {
    const of = a.facts.filter((f) => f.kind === k);
    assert.deepStrictEqual(a.totals[k], { facts: of.length, inSummary: of.filter((f) => f.inSummary).length }, k);
    facts += a.totals[k].facts;
  }
  assert.strictEqual(facts, a.facts.length);
}

/** Every fact's entries lie in the range and come before the anchor; ids sorted and unique. */
function assertInRange(a: CompactionAudit, allowed: ReadonlySet<number>): void {
  for (const f of a.facts) {
    assert.deepStrictEqual(
      f.entryIds,
      [...new Set(f.entryIds)].sort((x, y) => x - y),
      f.value,
    );
    for (const id of f.entryIds) assert.ok(allowed.has(id), `${f.kind} ${f.value} at ${id} is outside the range`);
  }
}

describe('compactionAudit', () => {
  /** Before: an old range closed by a first compaction; then the range the second one replaced; then what it does not cover. */
  function session() {
    const t = new TapeBuilder();
    t.system('You are helpful.');
    t.user('u0', 'Set up the project in old/setup.py');
    t.assistant('a0', 'ok');
    t.call('a0', 'c0', 'run_command', { command: 'pip install old-thing' });
    t.result('a0', 'c0', 'run_command', 'done');
    const first = compaction(t, 'Old work.', 2);
    const inRange: number[] = [];
    const add = (e: Entry) => (inRange.push(e.entryId), e);
    add(t.user('u1', '  Fix the   failing TEST\nin the parser, please'));
    add(t.assistant('a1', 'Looking.'));
    add(t.call('a1', 'c1', 'read_file', { path: '/w/src/parser.ts' }));
    add(t.call('a1', 'c2', 'Read', { file_path: 'src/lexer.ts' }));
    add(t.result('a1', 'c1', 'read_file', 'import { x } from "./lib/tokens.ts";\nsee https://example.com/docs/page.html'));
    add(t.result('a1', 'c2', 'Read', [{ type: 'text', text: 'body\n/w/src/lexer.ts:10 note' }]));
    add(t.assistant('a2', 'Running the tests.'));
    add(t.call('a2', 'c3', 'Bash', { command: 'npm test -- --grep parser\necho done' }));
    add(t.call('a2', 'c4', 'shell', { command: ['bash', '-lc', 'git commit -m "fix parser"'] }));
    add(t.call('a2', 'c5', 'run_command', { cmd: 'make lint' }));
    add(t.result('a2', 'c3', 'Bash', '\nError: expected 2, got 3\n  at parser.test.ts:4', 'error'));
    add(t.result('a2', 'c4', 'shell', 'ok'));
    add(t.result('a2', 'c5', 'run_command', 'ok'));
    add(t.add('error', 'error/tool', { kind: 'tool', message: 'Timeout after 30 s\nstack' }));
    add(t.call('a2', 'c6', 'edit_file', { paths: ['docs/a.md', 'docs/b.md'], filePath: '/w/README.md' }));
    add(t.result('a2', 'c6', 'edit_file', 'ok'));
    const last = add(t.user('u2', 'Also check the lexer'));
    // After the cursor: appended before the anchor, but the summary does not cover it.
    t.user('u3', 'Not covered: run rm -rf build in /w/late.ts', { orderSeq: 100 });
    const summary = [
      'The user asked to fix the failing test in the parser.',
      'Read parser.ts and src/lexer.ts, ran `npm test -- --grep parser` (it failed: Error: expected 2, got 3).',
      'Used read_file and Bash; git commit pending.',
    ].join('\n');
    const second = compaction(t, summary, last.payload.orderSeq as number);
    t.user('u4', 'After the compaction: look at /w/after.ts');
    t.call('u4', 'c9', 'read_file', { path: '/w/after.ts' });
    return { t, first, second, inRange: new Set(inRange) };
  }

  it('lists the facts of the range the compaction replaced, and only those', () => {
    const { t, second, inRange } = session();
    const a = auditCompaction(t.entries, second.entryId);
    assert.strictEqual(a.anchorEntryId, second.entryId);
    assert.deepStrictEqual(a.range, { from: Math.min(...inRange), to: Math.max(...inRange) });
    assertInRange(a, inRange);
    assertTotalsAddUp(a);
    const values = (kind: AuditFact['kind']) =>
      a.facts
        .filter((f) => f.kind === kind)
        .map((f) => f.value)
        .sort();
    assert.deepStrictEqual(values('path'), [
      './lib/tokens.ts',
      '/w/README.md',
      '/w/src/lexer.ts',
      '/w/src/parser.ts',
      'docs/a.md',
      'docs/b.md',
      'src/lexer.ts',
    ]);
    assert.deepStrictEqual(values('command'), ['git commit -m "fix parser"', 'make lint', 'npm test -- --grep parser\necho done']);
    assert.deepStrictEqual(values('error'), ['Error: expected 2, got 3', 'Timeout after 30 s']);
    assert.deepStrictEqual(values('request'), ['Also check the lexer', 'Fix the   failing TEST']);
    assert.deepStrictEqual(values('tool'), ['Bash', 'Read', 'edit_file', 'read_file', 'run_command', 'shell']);
    // Nothing from before the first compaction, after this one's cursor, or after the anchor.
    for (const f of a.facts) assert.doesNotMatch(f.value, /old|late\.ts|after\.ts|pip|not covered/i);
  });

  it('says for each fact whether the summary keeps it, by the stated rules', () => {
    const { t, second } = session();
    const a = auditCompaction(t.entries, second.entryId);
    const kept = (kind: AuditFact['kind'], value: string): boolean => {
      const f = fact(a, kind, value);
      assert.ok(f, `${kind} ${value} listed`);
      return f.inSummary;
    };
    // Paths: the full path, or the file name as a word.
    assert.strictEqual(kept('path', '/w/src/parser.ts'), true, 'file name parser.ts');
    assert.strictEqual(kept('path', 'src/lexer.ts'), true, 'full path');
    assert.strictEqual(kept('path', '/w/src/lexer.ts'), true, 'file name lexer.ts (in src/lexer.ts)');
    assert.strictEqual(kept('path', '/w/README.md'), false);
    assert.strictEqual(kept('path', 'docs/a.md'), false);
    assert.strictEqual(kept('path', './lib/tokens.ts'), false);
    // Commands: the first line up to its second operand after the program.
    assert.strictEqual(kept('command', 'npm test -- --grep parser\necho done'), true, 'first line');
    assert.strictEqual(kept('command', 'git commit -m "fix parser"'), false, '"git commit" names no one commit');
    assert.strictEqual(kept('command', 'make lint'), false);
    // Errors and requests: their first line, normalised (case, whitespace).
    assert.strictEqual(kept('error', 'Error: expected 2, got 3'), true);
    assert.strictEqual(kept('error', 'Timeout after 30 s'), false);
    assert.strictEqual(kept('request', 'Fix the   failing TEST'), true);
    assert.strictEqual(kept('request', 'Also check the lexer'), false);
    // Tools: the name as a word ("Read" is not in "read_file").
    assert.strictEqual(kept('tool', 'read_file'), true);
    assert.strictEqual(kept('tool', 'Bash'), true);
    assert.strictEqual(kept('tool', 'Read'), true, 'Read as a word in "Read parser.ts"');
    assert.strictEqual(kept('tool', 'shell'), false);
    assert.strictEqual(kept('tool', 'edit_file'), false);
    assert.deepStrictEqual(a.totals, {
      path: { facts: 7, inSummary: 3 },
      command: { facts: 3, inSummary: 1 },
      error: { facts: 2, inSummary: 1 },
      request: { facts: 2, inSummary: 1 },
      tool: { facts: 6, inSummary: 3 },
    });
  });

  it('gathers the entry ids of a fact that occurs more than once', () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', 'x');
    const c1 = t.call('a1', 'c1', 'read_file', { path: 'src/a.ts' });
    const r1 = t.result('a1', 'c1', 'read_file', 'see src/a.ts');
    const c2 = t.call('a1', 'c2', 'read_file', { path: 'SRC/A.ts' });
    t.result('a1', 'c2', 'read_file', 'ok');
    const anchor = compaction(t, 'nothing', 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    assert.deepStrictEqual(fact(a, 'path', 'src/a.ts')?.entryIds, [c1.entryId, r1.entryId, c2.entryId]);
    assert.deepStrictEqual(fact(a, 'tool', 'read_file')?.entryIds, [c1.entryId, c2.entryId]);
    assert.strictEqual(fact(a, 'path', 'src/a.ts')?.inSummary, false, '"a.ts" is not a word of "nothing"');
  });

  it('starts the first compaction at the session start and the next after the previous cursor', () => {
    const { t, first, second } = session();
    const a = auditCompaction(t.entries, first.entryId);
    assert.deepStrictEqual(
      a.facts.map((f) => `${f.kind}:${f.value}`).sort(),
      // A path in a user's words is not a path fact: only tool arguments and results name them.
      ['command:pip install old-thing', 'request:Set up the project in old/setup.py', 'tool:run_command'],
    );
    assert.deepStrictEqual(a.range, { from: 2, to: 5 });
    assert.deepStrictEqual(
      auditCompactions(t.entries).map((x) => x.anchorEntryId),
      [first.entryId, second.entryId],
    );
    assert.deepStrictEqual(
      compactionAnchors(t.entries).map((e) => e.entryId),
      [first.entryId, second.entryId],
    );
  });

  it('a handoff before a compaction bounds its range too; a non-reconstruction anchor does not', () => {
    const t = new TapeBuilder();
    t.user('u1', 'first request');
    t.anchor('handoff/x', { summary: 's' });
    t.anchor('memory/notes', {});
    t.user('u2', 'second request');
    const anchor = compaction(t, 'second request handled', 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    assert.deepStrictEqual(
      a.facts.map((f) => [f.value, f.inSummary]),
      [['second request', true]],
    );
  });

  it('an empty range gives no facts and null bounds', () => {
    const t = new TapeBuilder();
    t.user('u1', 'hello');
    const first = compaction(t, 'hello', 1);
    const second = compaction(t, 'nothing new', 1);
    assert.deepStrictEqual(auditCompaction(t.entries, first.entryId).totals.request, { facts: 1, inSummary: 1 });
    const a = auditCompaction(t.entries, second.entryId);
    assert.deepStrictEqual(a.range, { from: null, to: null });
    assert.deepStrictEqual(a.facts, []);
  });

  it('refuses an entry that is not a compaction anchor, naming the compactions', () => {
    const { t, first, second } = session();
    assert.throws(
      () => auditCompaction(t.entries, 2),
      (e: unknown) => {
        assert.ok(e instanceof CompactionAuditError);
        assert.match(
          e.message,
          new RegExp(`entry 2 is not a compaction anchor; compactions: compaction/auto#${first.entryId}, compaction/auto#${second.entryId}`),
        );
        return true;
      },
    );
    assert.throws(() => auditCompaction(t.entries, 9999), CompactionAuditError);
  });

  it("the agent's compaction: the range is what its sourceEntryIds name, effective versions only", () => {
    const t = new TapeBuilder();
    t.user('u1', 'draft request', { orderSeq: 1 });
    const revised = t.user('u1', 'Refactor util.ts', { orderSeq: 1 });
    t.user('gone', 'retracted request', { orderSeq: 2 });
    t.retract('gone');
    t.assistant('a1', 'On it.', { orderSeq: 3 });
    const call = t.call('a1', 'c1', 'read_file', { path: 'src/util.ts' });
    const open = t.call('a1', 'c2', 'run_command', { command: 'npm run build' });
    t.result('a1', 'c1', 'read_file', 'see lib/helper.js');
    t.assistant('p1', 'streaming', { orderSeq: 4, status: 'pending' });
    const coverage = coverageOf(contextItems(foldAll(t.rows(), { includePending: false }), null));
    assert.ok(coverage);
    const e = compactionAnchorEntry({ ...coverage, trigger: 'auto', summary: 'Refactoring util.ts', model: { id: 'm', vendor: 'v' } });
    const anchor = t.add(e.kind, e.name, e.payload);
    // Appended after the anchor: the late result of the open call is not what the summary saw.
    t.result('a1', 'c2', 'run_command', 'Error: build failed', 'error');
    const a = auditCompaction(t.entries, anchor.entryId);
    const ids = new Set(coverage.sourceEntryIds);
    assertInRange(a, ids);
    assertTotalsAddUp(a);
    assert.deepStrictEqual(a.range, { from: Math.min(...ids), to: Math.max(...ids) });
    assert.deepStrictEqual(
      a.facts.map((f) => [f.kind, f.value, f.inSummary, f.entryIds]),
      [
        ['request', 'Refactor util.ts', false, [revised.entryId]],
        ['tool', 'read_file', false, [call.entryId]],
        ['path', 'src/util.ts', true, [call.entryId]],
        ['tool', 'run_command', false, [open.entryId]],
        ['command', 'npm run build', false, [open.entryId]],
        ['path', 'lib/helper.js', false, [call.entryId + 2]],
      ],
    );
  });

  it('finds paths in tool output and apply_patch headers, conservatively', () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', 'x');
    t.call('a1', 'c1', 'grep', { pattern: 'x' });
    t.call('a1', 'c2', 'apply_patch', '*** Begin Patch\n*** Update File: src/p.ts\n@@\n*** Add File: docs/new.md\n*** End Patch');
    t.call('a1', 'c3', 'shell', { command: ['apply_patch', '*** Begin Patch\n*** Delete File: old.txt\n*** End Patch'] });
    const output = [
      'src/a.ts:3: match',
      '"/abs/dir/b.json" and ./rel/c.md, ~/home/d.txt.',
      'not paths: https://host.io/x/y.html v1.2.3 a/b e.g. 3/4.5 and/or',
    ].join('\n');
    t.result('a1', 'c1', 'grep', output);
    const anchor = compaction(t, '', 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    assert.deepStrictEqual(
      a.facts.filter((f) => f.kind === 'path').map((f) => f.value),
      ['src/p.ts', 'docs/new.md', 'old.txt', 'src/a.ts', '/abs/dir/b.json', './rel/c.md', '~/home/d.txt'],
    );
  });

  it("reads a tool's JSON output text as its strings, an error past a shell's header lines, and a quoted shell script as the command", () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', 'x');
    t.call('a1', 'c1', 'shell', { command: ['ls'] });
    t.call('a1', 'c2', 'shell', { command: ['cat', 'src/nope.ts'] });
    t.call('a1', 'c3', 'exec_command', { cmd: 'tsc' });
    t.call('a1', 'c4', 'Bash', { command: "bash -lc 'docker compose up -d db'" });
    t.call('a1', 'c5', 'Bash', { command: 'git push' });
    // Codex's shell output: a JSON text whose strings hold the lines.
    t.result('a1', 'c1', 'shell', JSON.stringify({ output: 'src\npackage.json\nsrc/x.ts\n', metadata: { exit_code: 0 } }));
    t.result('a1', 'c2', 'shell', JSON.stringify({ output: 'cat: src/nope.ts: No such file or directory\n', metadata: { exit_code: 1 } }), 'error');
    t.result(
      'a1',
      'c3',
      'exec_command',
      'Chunk ID: 9f\nWall time: 0.5 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nerror TS2304: Cannot find name',
      'error',
    );
    t.result('a1', 'c4', 'Bash', 'Exit code: 1\nWall time: 0.1 seconds\nOutput:\n', 'error');
    t.result('a1', 'c5', 'Bash', 'Exit code 128\nfatal: not a git repository', 'error');
    const anchor = compaction(t, 'Ran docker compose up and tsc.', 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    const values = (kind: AuditFact['kind']) => a.facts.filter((f) => f.kind === kind).map((f) => f.value);
    assert.deepStrictEqual(values('path'), ['src/x.ts', 'src/nope.ts']);
    assert.deepStrictEqual(values('error'), [
      'cat: src/nope.ts: No such file or directory',
      'error TS2304: Cannot find name',
      'Exit code: 1',
      'fatal: not a git repository',
    ]);
    assert.deepStrictEqual(values('command'), ['ls', 'cat src/nope.ts', 'tsc', 'docker compose up -d db', 'git push']);
    assert.strictEqual(fact(a, 'command', 'docker compose up -d db')?.inSummary, true, 'its program and first argument');
    assertTotalsAddUp(a);
  });

  it('keeps a command only when the summary names that one: its first line up to its second operand after the program', () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', 'x');
    const commands = [
      'bd close spotter-dov.1 --reason="done, tests pass"',
      'bd close spotter-dov.2 --reason=dup',
      'git commit -m "fix the parser" --no-verify',
      'git commit -m "other change"',
      'ls',
      'find src/tape -name "*.ts" -newer x',
      'npm run build\nnpm test',
      'make',
      'mix test --seed 0 2>&1 | tail -15',
      'mix credo --strict 2>/dev/null',
      'cd /repo && npm ci',
    ];
    commands.forEach((command, i) => t.call('a1', `c${i}`, 'Bash', { command }));
    const summary =
      'Closed it with `bd close spotter-dov.2` and ran git commit -m "Fix the parser". Tools: Bash. Ran FIND src/tape -name "*.ts" and npm run build; make. Then mix test --seed 0 passed, mix credo was clean, and cd /repo went fine.';
    const anchor = compaction(t, summary, 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    assert.deepStrictEqual(
      a.facts.filter((f) => f.kind === 'command').map((f) => [f.value.split('\n')[0], f.inSummary]),
      [
        ['bd close spotter-dov.1 --reason="done, tests pass"', false],
        ['bd close spotter-dov.2 --reason=dup', true],
        ['git commit -m "fix the parser" --no-verify', true],
        ['git commit -m "other change"', false],
        // "ls" is in "tools" but not as a word.
        ['ls', false],
        ['find src/tape -name "*.ts" -newer x', true],
        ['npm run build', true],
        ['make', true],
        // A pipe or redirection ends the head; `&&` does not (the command after it is the one run).
        ['mix test --seed 0 2>&1 | tail -15', true],
        ['mix credo --strict 2>/dev/null', false],
        ['cd /repo && npm ci', false],
      ],
    );
  });

  it('matches against the first 262,144 characters of the summary only, so its index stays bounded', () => {
    const t = new TapeBuilder();
    t.user('u1', 'go');
    t.assistant('a1', 'x');
    t.call('a1', 'c1', 'read_file', { path: 'src/early.ts' });
    t.call('a1', 'c2', 'read_file', { path: 'src/late.ts' });
    const filler = 'word '.repeat((256 * 1024) / 5);
    const anchor = compaction(t, `src/early.ts ${filler} src/late.ts`, 2);
    const a = auditCompaction(t.entries, anchor.entryId);
    assert.strictEqual(fact(a, 'path', 'src/early.ts')?.inSummary, true);
    assert.strictEqual(fact(a, 'path', 'src/late.ts')?.inSummary, false);
  });
});
