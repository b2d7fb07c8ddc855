import * as assert from 'assert';
import fc from 'fast-check';
import type { LineOrigin } from '../../../src/blame/tapeBlame';
import { blameActions, type BlameActionContext } from '../../../src/extension/blame/blameActions';
import { blameHoverMarkdown, commandUri, shortPrompt } from '../../../src/extension/blame/blameHover';

interface Token {
  type: string;
  content: string;
  attrs: [string, string][] | null;
  children: Token[] | null;
}
// A CommonMark parser to check against (as markdownCode.test.ts does); it comes with @vscode/vsce.
const MarkdownIt = require('markdown-it') as new (preset: 'commonmark') => { parse(src: string, env: object): Token[] };
const md = new MarkdownIt('commonmark');

const NOW = Date.parse('2026-12-06T18:00:00.000Z');
const origin: LineOrigin = {
  sessionId: 'claude-code:7d1e',
  entryId: 14,
  agent: 'claude-code',
  model: 'claude-sonnet-4-5',
  turn: 3,
  prompt: 'Make greet() say\nhello to everyone',
  at: '2026-12-06T15:00:00.000Z',
  sessionTitle: 'Greetings',
  requestEntryId: 12,
};
/** A fork whose own entries come after its parent's 10 (the inspector's positions). */
const fork: BlameActionContext = { positionOf: (_s, id) => id + 9, canRerun: true };

/** Every inline token of the hover, flattened. */
const inline = (markdown: string): Token[] => md.parse(markdown, {}).flatMap((t) => t.children ?? []);
const links = (markdown: string): string[] =>
  inline(markdown).flatMap((t) => (t.type === 'link_open' ? [t.attrs?.find(([k]) => k === 'href')?.[1] ?? ''] : []));
const argsOf = (uri: string): unknown => JSON.parse(decodeURIComponent(uri.slice(uri.indexOf('?') + 1)));

describe('the blame hover (a line an agent wrote)', () => {
  it('says who, where, when and the prompt, then the three actions at the positions the inspector and Re-run use', () => {
    const actions = blameActions(origin, fork);
    assert.deepStrictEqual(
      actions.map((a) => [a.title, a.command, a.args]),
      [
        ['Open in Inspector', 'agentTape.openInspector', ['claude-code:7d1e', 23]],
        ['Show the Request', 'agentTape.openInspector', ['claude-code:7d1e', 21]],
        ['Re-run…', 'agentTape.rerunRequest', ['claude-code:7d1e', 21]],
      ],
    );
    const markdown = blameHoverMarkdown(origin, actions, NOW);
    assert.strictEqual(
      markdown,
      [
        '**Agent Tape blame:** `Claude Code` `claude-sonnet-4-5`',
        '`Greetings` · turn 3 · 3 h ago (2026-12-06 15:00 UTC)',
        'Prompt: `Make greet() say hello to everyone`',
        `[Open in Inspector](${commandUri('agentTape.openInspector', ['claude-code:7d1e', 23])}) · [Show the Request](${commandUri('agentTape.openInspector', ['claude-code:7d1e', 21])}) · [Re-run…](${commandUri('agentTape.rerunRequest', ['claude-code:7d1e', 21])})`,
      ].join('\n\n'),
    );
    assert.deepStrictEqual(links(markdown).map(argsOf), [
      ['claude-code:7d1e', 23],
      ['claude-code:7d1e', 21],
      ['claude-code:7d1e', 21],
    ]);
  });

  it('offers no Re-run where it may not run (untrusted, read-only), and neither request action when no request was recorded', () => {
    assert.deepStrictEqual(
      blameActions(origin, { ...fork, canRerun: false }).map((a) => a.title),
      ['Open in Inspector', 'Show the Request'],
    );
    const ingested = { ...origin, requestEntryId: null, model: null, turn: null, prompt: null, sessionTitle: null };
    const actions = blameActions(ingested, fork);
    assert.deepStrictEqual(
      actions.map((a) => a.title),
      ['Open in Inspector'],
    );
    assert.strictEqual(
      blameHoverMarkdown(ingested, actions, NOW).split('\n\n').slice(0, 2).join('\n\n'),
      '**Agent Tape blame:** `Claude Code`\n\n`claude-code:7d1e` · 3 h ago (2026-12-06 15:00 UTC)',
    );
  });

  it('a long prompt is shortened to its start on one line', () => {
    assert.strictEqual(shortPrompt('  a\n\n b\tc  '), 'a b c');
    assert.strictEqual(shortPrompt('x'.repeat(500), 10), `${'x'.repeat(9)}…`);
  });

  it('whatever the tape holds, the hover has only our links, with their arguments intact, and no HTML', () => {
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom(
        '[x](command:workbench.action.terminal.new)',
        '<img src=x onerror=alert(1)>',
        '`',
        '``)',
        ')',
        '](',
        '\n\n# h',
        '$(alert)',
        '\u202e',
        '*',
      ),
    );
    const text = fc.array(hostile, { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, text, text, text, text, (sessionId, agent, title, prompt, model) => {
        const o: LineOrigin = { ...origin, sessionId, agent, sessionTitle: title, prompt, model };
        const actions = blameActions(o, fork);
        const markdown = blameHoverMarkdown(o, actions, NOW);
        const tokens = inline(markdown);
        assert.deepStrictEqual(
          tokens.filter((t) => t.type === 'html_inline' || t.type === 'image'),
          [],
        );
        assert.deepStrictEqual(
          md.parse(markdown, {}).filter((t) => t.type === 'html_block' || t.type.startsWith('heading')),
          [],
        );
        const hrefs = links(markdown);
        assert.deepStrictEqual(
          hrefs.map((h) => h.slice(0, h.indexOf('?'))),
          ['command:agentTape.openInspector', 'command:agentTape.openInspector', 'command:agentTape.rerunRequest'],
        );
        assert.deepStrictEqual(
          hrefs.map(argsOf),
          actions.map((a) => a.args),
        );
      }),
      { numRuns: 300 },
    );
  });
});
