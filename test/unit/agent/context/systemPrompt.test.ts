import * as assert from 'assert';
import { sha256Hex } from '../../../../src/tape/canonicalJson';
import { validateNewEntry } from '../../../../src/tape/entry';
import { needsSystemPrompt, systemPromptEntry } from '../../../../src/tape/systemPromptEntry';
import { BASE_INSTRUCTIONS, buildSystemPrompt } from '../../../../src/agent/context/systemPrompt';

const environment = { os: 'linux', shell: '/bin/bash', workspaceRoot: '/home/me/project', date: '2026-11-30' };

describe('system prompt', () => {
  it('puts the base instructions first, then AGENTS.md, then the environment facts', () => {
    const text = buildSystemPrompt({ environment, agentsMd: '  Use pnpm, never npm.\n' });
    const base = text.indexOf(BASE_INSTRUCTIONS.slice(0, 40));
    const agents = text.indexOf('Use pnpm, never npm.');
    const env = text.indexOf('- Workspace root: /home/me/project');
    assert.ok(base === 0 && agents > base && env > agents, text);
    for (const fact of ['- OS: linux', '- Shell: /bin/bash', '- Date: 2026-11-30']) assert.ok(text.includes(fact), fact);
  });

  it('leaves the AGENTS.md section out when there is none or it is blank', () => {
    for (const agentsMd of [undefined, null, '  \n ']) {
      assert.ok(!buildSystemPrompt({ environment, agentsMd }).includes('AGENTS.md'));
    }
  });

  it('takes other base instructions when given, and builds the same text from the same input', () => {
    const text = buildSystemPrompt({ environment, baseInstructions: 'Be terse.' });
    assert.ok(text.startsWith('Be terse.\n\n# Environment'));
    assert.strictEqual(buildSystemPrompt({ environment, agentsMd: 'x' }), buildSystemPrompt({ environment: { ...environment }, agentsMd: 'x' }));
  });

  it('is a valid system/prompt entry carrying the SHA-256 of its text', () => {
    const text = buildSystemPrompt({ environment });
    const entry = systemPromptEntry(text);
    assert.doesNotThrow(() => validateNewEntry(entry));
    assert.deepStrictEqual(entry, { kind: 'system', name: 'system/prompt', payload: { content: text, hash: sha256Hex(text) } });
  });

  it('asks for a new entry only when there is none or the text changed', () => {
    const text = buildSystemPrompt({ environment });
    assert.strictEqual(needsSystemPrompt(null, text), true);
    assert.strictEqual(needsSystemPrompt(systemPromptEntry(text).payload.hash as string, text), false);
    const tomorrow = buildSystemPrompt({ environment: { ...environment, date: '2026-12-01' } });
    assert.strictEqual(needsSystemPrompt(sha256Hex(text), tomorrow), true);
  });
});
