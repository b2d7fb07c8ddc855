import * as assert from 'assert';
import type { BlameRange, LineOrigin } from '../../../src/blame/tapeBlame';
import { agentColour, agentLineCount, endOfLineNotes, gutterSpans, rangeAtLine } from '../../../src/extension/blame/blameMarks';

const NOW = Date.parse('2026-12-06T18:00:00.000Z');
const by = (agent: string, turn: number | null, at: string, entryId = 1): LineOrigin => ({
  sessionId: `${agent}:s`,
  entryId,
  agent,
  model: null,
  turn,
  prompt: null,
  at,
  sessionTitle: null,
  requestEntryId: null,
});
const claude = by('claude-code', 3, '2026-12-06T15:00:00.000Z');
const codex = by('codex', null, '2026-12-04T18:00:00.000Z');
const ranges: BlameRange[] = [
  { startLine: 1, endLine: 2, origin: null },
  { startLine: 3, endLine: 5, origin: claude },
  { startLine: 6, endLine: 6, origin: codex },
  { startLine: 7, endLine: 9, origin: null },
  { startLine: 10, endLine: 10, origin: { ...claude, entryId: 20, turn: 4 } },
];

describe('blame marks (from a file blame to what the editor shows)', () => {
  it('the gutter: each agent its lines, counted from 0 as editors do', () => {
    assert.deepStrictEqual(
      [...gutterSpans(ranges)],
      [
        [
          'claude-code',
          [
            { start: 2, end: 4 },
            { start: 9, end: 9 },
          ],
        ],
        ['codex', [{ start: 5, end: 5 }]],
      ],
    );
  });

  it('the end-of-line notes: one on the first line of each range an agent wrote', () => {
    assert.deepStrictEqual(endOfLineNotes(ranges, NOW), [
      { line: 2, agent: 'claude-code', text: 'Claude Code · turn 3 · 3 h ago' },
      { line: 5, agent: 'codex', text: 'Codex · 2 days ago' },
      { line: 9, agent: 'claude-code', text: 'Claude Code · turn 4 · 3 h ago' },
    ]);
  });

  it("a note shows an unknown agent's name as text, its bidirectional formatting escaped, and at most 80 characters", () => {
    const [note] = endOfLineNotes([{ startLine: 1, endLine: 1, origin: by(`evil\u202e${'x'.repeat(100)}`, 1, '2026-12-06T17:59:30.000Z') }], NOW);
    assert.ok(note.text.startsWith('evil\\u202exxx'), note.text);
    assert.strictEqual(note.text.length, 80);
    assert.ok(note.text.endsWith('…'));
  });

  it('counts the lines agents wrote, and finds the range of any line', () => {
    assert.strictEqual(agentLineCount(ranges), 5);
    assert.strictEqual(agentLineCount([{ startLine: 1, endLine: 40, origin: null }]), 0);
    assert.deepStrictEqual(
      [0, 2, 4, 5, 8, 9, 10].map((line) => rangeAtLine(ranges, line)?.startLine),
      [1, 3, 3, 6, 7, 10, undefined],
    );
  });

  it('each agent the tape knows has its own colour, and any other name always the same one', () => {
    const known = ['agent-tape', 'claude-code', 'codex', 'vscode-chat', 'opencode', 'gemini', 'cline', 'roo', 'kilo', 'copilot-cli'].map(agentColour);
    assert.strictEqual(new Set(known).size, known.length);
    assert.ok(known.every((c) => /^#[0-9a-f]{6}$/.test(c)));
    assert.strictEqual(agentColour('some-new-agent'), agentColour('some-new-agent'));
  });
});
