import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { defaultTools } from '../../../src/agent/agentSession';
import { ToolRegistry, type Tool } from '../../../src/agent/tools/tool';
import { CHAT_ONLY_TOOLS, contributedToolNames, toolContributions } from '../../../src/extension/tools/toolContributions';

// Compiled to <out>/test/unit/extension/, four levels below the repository root.
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as {
  contributes: { languageModelTools?: Array<Record<string, unknown>> };
};
const contributed = manifest.contributes.languageModelTools ?? [];
const FIX = 'run `node scripts/tool-contributions.mjs --write`';

describe('package.json languageModelTools', () => {
  it('contributes every core tool but the chat-only run_subagent, by the same name and in the same order', () => {
    assert.deepStrictEqual(
      contributed.map((t) => t.name),
      contributedToolNames(),
      FIX,
    );
    assert.ok(defaultTools().names().includes('run_subagent') && !contributedToolNames().includes('run_subagent'));
    assert.strictEqual(contributedToolNames().length, defaultTools().names().length - CHAT_ONLY_TOOLS.size);
  });

  it("gives each the core's description and exactly the input schema the core validates with", () => {
    for (const spec of defaultTools()
      .specs()
      .filter((s) => !CHAT_ONLY_TOOLS.has(s.name))) {
      const entry = contributed.find((t) => t.name === spec.name);
      assert.strictEqual(entry?.modelDescription, spec.description, `${spec.name}: ${FIX}`);
      assert.deepStrictEqual(entry?.inputSchema, spec.parameters, `${spec.name}: ${FIX}`);
      assert.strictEqual(entry?.toolReferenceName, spec.name);
    }
  });

  it('offers apply_edit and run_command only in a trusted workspace, the others everywhere', () => {
    const when = Object.fromEntries(contributed.map((t) => [t.name, t.when]));
    assert.strictEqual(when.apply_edit, 'isWorkspaceTrusted');
    assert.strictEqual(when.run_command, 'isWorkspaceTrusted');
    assert.deepStrictEqual(
      Object.entries(when)
        .filter(([, w]) => w !== undefined)
        .map(([n]) => n),
      ['apply_edit', 'run_command'],
    );
  });

  it('asks first (trusted workspace only) and tags what a tool does by its effect, not by its name', () => {
    const core = defaultTools();
    const remarked = (name: string, effect: Tool['effect']): Tool => ({ ...core.get(name)!, effect });
    const shown = toolContributions(
      new ToolRegistry([remarked('read_file', 'edit'), remarked('apply_edit', 'read'), remarked('tape_info', 'command'), remarked('run_command', 'tape')]),
    );
    assert.deepStrictEqual(
      shown.map((c) => [c.name, c.when, c.tags.at(-1)]),
      [
        ['read_file', 'isWorkspaceTrusted', 'edit'],
        ['apply_edit', undefined, 'read'],
        ['tape_info', 'isWorkspaceTrusted', 'terminal'],
        ['run_command', undefined, 'write'],
      ],
    );
  });

  it('matches what the generator writes, presentation included', () => {
    assert.deepStrictEqual(contributed, JSON.parse(JSON.stringify(toolContributions())), FIX);
  });
});
