import * as assert from 'assert';
import * as z from 'zod';
import { invokeTool, MAX_TOOL_OUTPUT_BYTES, ToolRegistry, toolSpec, type Tool } from '../../../../src/agent/tools/tool';
import { WORKSPACE_TOOLS } from '../../../../src/agent/tools/workspaceTools';
import { TempWorkspace } from './fixture';

describe('invokeTool and the tool registry', () => {
  let ws: TempWorkspace;
  beforeEach(() => (ws = new TempWorkspace({ 'a.txt': 'a\n' })));
  afterEach(() => ws.dispose());

  it('invalid input is an error result naming the field, and the tool is not run', async () => {
    const wrongType = await ws.call('read_file', { path: 42 });
    assert.strictEqual(wrongType.status, 'error');
    assert.match(wrongType.output, /^invalid input for read_file: ✖ .*\n {2}→ at path$/);
    const missing = await ws.call('apply_edit', { path: 'b.txt' });
    assert.strictEqual(missing.status, 'error');
    assert.match(missing.output, /^invalid input for apply_edit: ✖ .*\n {2}→ at newText$/);
    assert.strictEqual(ws.exists('b.txt'), false);
    const badLine = await ws.call('read_file', { path: 'a.txt', startLine: 0 });
    assert.match(badLine.output, /\n {2}→ at startLine$/);
    const notObject = await ws.call('run_command', 'ls');
    assert.strictEqual(notObject.status, 'error');
    assert.match(notObject.output, /^invalid input for run_command: ✖ [^\n]*$/);
    const badTimeout = await ws.call('run_command', { command: 'echo x > ran.txt', timeoutMs: 'soon' });
    assert.match(badTimeout.output, /\n {2}→ at timeoutMs$/);
    assert.strictEqual(ws.exists('ran.txt'), false);
  });

  it('an unknown tool is an error result listing the tools', async () => {
    const result = await ws.call('delete_everything', {});
    assert.strictEqual(result.status, 'error');
    assert.match(result.output, /unknown tool "delete_everything"; available tools: read_file, list_dir, find_files, search_text, apply_edit, run_command/);
  });

  it('an exception in a tool (a throwing ask callback included) becomes an error result', async () => {
    const throwing: Tool = {
      name: 'boom',
      description: 'throws',
      effect: 'read',
      inputSchema: z.object({}),
      run: async () => {
        throw new Error('kaput');
      },
    };
    const registry = new ToolRegistry([throwing]);
    assert.deepStrictEqual(await invokeTool(registry, 'boom', {}, ws.ctx()), { status: 'error', output: 'boom failed: kaput' });
    const ask = async () => {
      throw new Error('dialog closed');
    };
    assert.deepStrictEqual(await ws.call('apply_edit', { path: 'a.txt', newText: 'x' }, ws.ctx({ ask })), {
      status: 'error',
      output: 'apply_edit failed: dialog closed',
    });
    assert.strictEqual(ws.read('a.txt'), 'a\n');
  });

  it('a tool must say what it may change: without an effect it does not compile, and the registry refuses it', () => {
    // @ts-expect-error the effect is required
    const unmarked: Tool = {
      name: 'unmarked',
      description: 'says nothing',
      inputSchema: z.object({}),
      run: () => Promise.resolve({ status: 'ok', output: '' }),
    };
    assert.throws(() => new ToolRegistry([unmarked]), /tool "unmarked" has no effect/);
    const misspelt = { ...unmarked, effect: 'write' } as unknown as Tool;
    assert.throws(() => new ToolRegistry([misspelt]), /tool "unmarked" has no effect/);
    assert.strictEqual(new ToolRegistry([{ ...unmarked, effect: 'edit' }]).effectOf('unmarked'), 'edit');
  });

  it('caps every output at MAX_TOOL_OUTPUT_BYTES without splitting a character', async () => {
    ws.write('big.txt', 'é'.repeat(MAX_TOOL_OUTPUT_BYTES));
    const result = await ws.call('read_file', { path: 'big.txt' });
    assert.strictEqual(result.status, 'ok');
    assert.strictEqual(result.truncated, true);
    assert.ok(Buffer.byteLength(result.output) <= MAX_TOOL_OUTPUT_BYTES);
    assert.match(result.output, /^é+\n\[output truncated at 65536 bytes\]$/);
    assert.strictEqual((await ws.call('read_file', { path: 'a.txt' })).truncated, undefined);
  });

  it('refuses to register a name twice', () => {
    assert.throws(() => new ToolRegistry([WORKSPACE_TOOLS[0], WORKSPACE_TOOLS[0]]), /registered twice/);
  });

  it('generates a JSON Schema for every tool from its zod schema, with the right required fields', () => {
    const specs = new ToolRegistry(WORKSPACE_TOOLS).specs();
    const expected: Record<string, { required: string[]; properties: string[] }> = {
      read_file: { required: ['path'], properties: ['path', 'startLine', 'endLine'] },
      list_dir: { required: ['path'], properties: ['path'] },
      find_files: { required: ['pattern'], properties: ['pattern'] },
      search_text: { required: ['query'], properties: ['query', 'isRegex', 'include'] },
      apply_edit: { required: ['path', 'newText'], properties: ['path', 'oldText', 'newText'] },
      run_command: { required: ['command'], properties: ['command', 'timeoutMs'] },
    };
    assert.deepStrictEqual(
      specs.map((s) => s.name),
      Object.keys(expected),
    );
    for (const spec of specs) {
      const schema = spec.parameters as { type: string; required: string[]; properties: Record<string, { type: string; description?: string }> };
      assert.strictEqual(schema.type, 'object', spec.name);
      assert.deepStrictEqual(schema.required, expected[spec.name].required, spec.name);
      assert.deepStrictEqual(Object.keys(schema.properties), expected[spec.name].properties, spec.name);
      for (const property of Object.values(schema.properties)) assert.ok(property.description, `${spec.name} describes every field`);
      assert.ok(spec.description.length > 20);
      assert.strictEqual('$schema' in schema, false);
    }
    const read = toolSpec(WORKSPACE_TOOLS[0]).parameters as { properties: Record<string, { type: string; minimum?: number }> };
    assert.strictEqual(read.properties.startLine.type, 'integer');
    assert.strictEqual(read.properties.startLine.minimum, 1);
  });
});
