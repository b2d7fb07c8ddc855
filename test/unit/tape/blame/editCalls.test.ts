import * as assert from 'assert';
import { editsOfEntry } from '../../../../src/tape/blame/editCalls';
import type { FileEdit } from '../../../../src/tape/blame/fileChange';
import type { Entry, Kind } from '../../../../src/tape/entry';

const entry = (kind: Kind, name: string, payload: Record<string, unknown>): Entry => ({
  sessionId: 's',
  entryId: 1,
  kind,
  name,
  provenanceKey: null,
  payload,
  meta: {},
  createdAt: 0,
});
const call = (name: string, input: unknown): Entry => entry('tool_call', name, { messageId: 'm', toolCallId: 'c', name, input });
const edits = (agent: string, name: string, input: unknown): FileEdit[] => editsOfEntry(agent, call(name, input));
const replace = (oldText: string, newText: string, all = false) => ({ kind: 'replace', oldText, newText, all });
const write = (content: string) => ({ kind: 'write', content });

const PATCH = '*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n';
const PATCH_EDITS = [{ path: 'a.py', changes: [replace('    return 1\n', '    return 2\n')] }];

describe('edit calls: what each agent’s edit tools wrote', () => {
  it('our apply_edit: a replace, or a write without oldText', () => {
    assert.deepStrictEqual(edits('agent-tape', 'apply_edit', { path: 'src/a.ts', oldText: 'x', newText: 'y' }), [
      { path: 'src/a.ts', changes: [replace('x', 'y')] },
    ]);
    assert.deepStrictEqual(edits('agent-tape', 'apply_edit', { path: 'src/a.ts', newText: 'all\n' }), [{ path: 'src/a.ts', changes: [write('all\n')] }]);
  });

  it('Claude Code: Edit (replace_all), MultiEdit in order, Write, and an empty old_string as a create', () => {
    assert.deepStrictEqual(edits('claude-code', 'Edit', { file_path: '/p/a', old_string: 'a', new_string: 'b', replace_all: true }), [
      { path: '/p/a', changes: [replace('a', 'b', true)] },
    ]);
    assert.deepStrictEqual(edits('claude-code', 'Edit', { file_path: '/p/new', old_string: '', new_string: 'hi' }), [
      { path: '/p/new', changes: [write('hi')] },
    ]);
    assert.deepStrictEqual(
      edits('claude-code', 'MultiEdit', {
        file_path: '/p/a',
        edits: [
          { old_string: 'a', new_string: 'b' },
          { old_string: 'c', new_string: 'd', replace_all: true },
        ],
      }),
      [{ path: '/p/a', changes: [replace('a', 'b'), replace('c', 'd', true)] }],
    );
    assert.deepStrictEqual(edits('claude-code', 'Write', { file_path: '/p/w', content: 'x\n' }), [{ path: '/p/w', changes: [write('x\n')] }]);
    assert.deepStrictEqual(edits('claude-code', 'NotebookEdit', { notebook_path: '/p/n.ipynb', new_source: 'x' }), []);
  });

  it('Codex: the apply_patch custom tool (its text), the function form ({input}), and apply_patch run by shell or exec_command', () => {
    assert.deepStrictEqual(edits('codex', 'apply_patch', PATCH), PATCH_EDITS);
    assert.deepStrictEqual(edits('codex', 'apply_patch', { input: PATCH }), PATCH_EDITS);
    assert.deepStrictEqual(edits('codex', 'shell', { command: ['apply_patch', PATCH] }), PATCH_EDITS);
    assert.deepStrictEqual(edits('codex', 'shell', { command: ['apply_patch', PATCH], workdir: '/p' }), [{ ...PATCH_EDITS[0], path: '/p/a.py' }]);
    assert.deepStrictEqual(edits('codex', 'shell', { command: ['bash', '-lc', `apply_patch <<'EOF'\n${PATCH}EOF\n`] }), PATCH_EDITS);
    assert.deepStrictEqual(edits('codex', 'exec_command', { cmd: `apply_patch <<'EOF'\n${PATCH}EOF` }), PATCH_EDITS);
    assert.deepStrictEqual(edits('codex', 'exec_command', { cmd: 'cat a.txt' }), []);
  });

  it('Gemini CLI: replace (one or several occurrences, an empty old_string a create) and write_file', () => {
    assert.deepStrictEqual(edits('gemini', 'replace', { file_path: '/p/a', old_string: 'a', new_string: 'b', instruction: 'x' }), [
      { path: '/p/a', changes: [replace('a', 'b')] },
    ]);
    assert.deepStrictEqual(edits('gemini', 'replace', { file_path: '/p/a', old_string: 'a', new_string: 'b', expected_replacements: 3 }), [
      { path: '/p/a', changes: [replace('a', 'b', true)] },
    ]);
    assert.deepStrictEqual(edits('gemini', 'replace', { file_path: '/p/a', old_string: 'a', new_string: 'b', allow_multiple: true }), [
      { path: '/p/a', changes: [replace('a', 'b', true)] },
    ]);
    assert.deepStrictEqual(edits('gemini', 'replace', { file_path: '/p/n', old_string: '', new_string: 'new' }), [{ path: '/p/n', changes: [write('new')] }]);
    assert.deepStrictEqual(edits('gemini', 'write_file', { file_path: '/p/w', content: 'w' }), [{ path: '/p/w', changes: [write('w')] }]);
  });

  it('opencode: edit, multiedit, write, and patch / apply_patch in the Codex format', () => {
    assert.deepStrictEqual(edits('opencode', 'edit', { filePath: '/p/a', oldString: 'a', newString: 'b', replaceAll: true }), [
      { path: '/p/a', changes: [replace('a', 'b', true)] },
    ]);
    assert.deepStrictEqual(
      edits('opencode', 'multiedit', {
        filePath: '/p/a',
        edits: [
          { filePath: '/p/other', oldString: 'a', newString: 'b' },
          { oldString: 'c', newString: 'd', replaceAll: true },
        ],
      }),
      [{ path: '/p/a', changes: [replace('a', 'b'), replace('c', 'd', true)] }],
    );
    assert.deepStrictEqual(edits('opencode', 'write', { filePath: '/p/w', content: 'w' }), [{ path: '/p/w', changes: [write('w')] }]);
    assert.deepStrictEqual(edits('opencode', 'apply_patch', { patchText: PATCH }), PATCH_EDITS);
    assert.deepStrictEqual(edits('opencode', 'patch', { patchText: PATCH }), PATCH_EDITS);
  });

  for (const agent of ['cline', 'roo', 'kilo']) {
    it(`${agent}: write_to_file, replace_in_file, apply_diff (one file or Roo's multi-file args), insert_content, search_and_replace, apply_patch, delete_file`, () => {
      const diff = '------- SEARCH\nold\n=======\nnew\n+++++++ REPLACE';
      assert.deepStrictEqual(edits(agent, 'write_to_file', { path: 'a.ts', content: 'c', line_count: '1' }), [{ path: 'a.ts', changes: [write('c')] }]);
      assert.deepStrictEqual(edits(agent, 'replace_in_file', { path: 'a.ts', diff }), [{ path: 'a.ts', changes: [replace('old\n', 'new\n')] }]);
      assert.deepStrictEqual(edits(agent, 'apply_diff', { path: 'a.ts', diff: diff.replace('------- SEARCH', '<<<<<<< SEARCH\n:start_line:3\n-------') }), [
        { path: 'a.ts', changes: [replace('old\n', 'new\n')] },
      ]);
      const args = `<file><path>a.ts</path><diff><content>${diff}</content><start_line>3</start_line></diff><diff><content><![CDATA[${diff.replace(/old/g, 'o2').replace(/new/g, 'n2')}]]></content></diff></file>\n<file><path>b.ts</path><diff><content>${diff}</content></diff></file>`;
      assert.deepStrictEqual(edits(agent, 'apply_diff', { args }), [
        { path: 'a.ts', changes: [replace('old\n', 'new\n'), replace('o2\n', 'n2\n')] },
        { path: 'b.ts', changes: [replace('old\n', 'new\n')] },
      ]);
      assert.deepStrictEqual(edits(agent, 'insert_content', { path: 'a.ts', line: '0', content: 'tail' }), [
        { path: 'a.ts', changes: [{ kind: 'written', newText: 'tail\n' }] },
      ]);
      assert.deepStrictEqual(edits(agent, 'search_and_replace', { path: 'a.ts', search: 'x', replace: 'y' }), [
        { path: 'a.ts', changes: [replace('x', 'y', true)] },
      ]);
      assert.deepStrictEqual(edits(agent, 'search_and_replace', { path: 'a.ts', search: 'x+', replace: 'y', use_regex: 'true' }), []);
      const operations = [
        { search: 'a', replace: 'b' },
        { search: 'c', replace: 'd', use_regex: false },
      ];
      const both = [{ path: 'a.ts', changes: [replace('a', 'b', true), replace('c', 'd', true)] }];
      assert.deepStrictEqual(edits(agent, 'search_and_replace', { path: 'a.ts', operations }), both);
      assert.deepStrictEqual(edits(agent, 'search_and_replace', { path: 'a.ts', operations: JSON.stringify(operations) }), both);
      for (const op of [{ ignore_case: true }, { start_line: 3 }, { use_regex: true }])
        assert.deepStrictEqual(edits(agent, 'search_and_replace', { path: 'a.ts', operations: [operations[0], { ...operations[1], ...op }] }), []);
      assert.deepStrictEqual(edits(agent, 'apply_patch', { input: PATCH }), PATCH_EDITS);
      assert.deepStrictEqual(edits(agent, 'delete_file', { path: 'a.ts' }), [{ path: 'a.ts', changes: [{ kind: 'delete' }] }]);
    });
  }

  it('Copilot CLI: edit and create', () => {
    assert.deepStrictEqual(edits('copilot-cli', 'edit', { path: '/p/a', old_str: 'helo', new_str: 'hello' }), [
      { path: '/p/a', changes: [replace('helo', 'hello')] },
    ]);
    assert.deepStrictEqual(edits('copilot-cli', 'edit', { path: '/p/a', old_str: 'gone\n' }), [{ path: '/p/a', changes: [replace('gone\n', '')] }]);
    assert.deepStrictEqual(edits('copilot-cli', 'create', { path: '/p/n', file_text: 'n\n' }), [{ path: '/p/n', changes: [write('n\n')] }]);
  });

  it("VS Code chat: Copilot's tools by their model names and tool ids, and the recorded text edits as written text", () => {
    for (const [name, multi, create, patch] of [
      ['replace_string_in_file', 'multi_replace_string_in_file', 'create_file', 'apply_patch'],
      ['copilot_replaceString', 'copilot_multiReplaceString', 'copilot_createFile', 'copilot_applyPatch'],
    ]) {
      assert.deepStrictEqual(edits('vscode-chat', name, { filePath: '/p/a', oldString: 'bug', newString: 'fixed' }), [
        { path: '/p/a', changes: [replace('bug', 'fixed')] },
      ]);
      assert.deepStrictEqual(
        edits('vscode-chat', multi, {
          explanation: 'x',
          replacements: [
            { filePath: '/p/a', oldString: 'a', newString: 'b' },
            { filePath: '/p/b', oldString: 'c', newString: 'd' },
          ],
        }),
        [
          { path: '/p/a', changes: [replace('a', 'b')] },
          { path: '/p/b', changes: [replace('c', 'd')] },
        ],
      );
      assert.deepStrictEqual(edits('vscode-chat', create, { filePath: '/p/n', content: 'n' }), [{ path: '/p/n', changes: [write('n')] }]);
      assert.deepStrictEqual(edits('vscode-chat', patch, { input: PATCH, explanation: 'e' }), PATCH_EDITS);
    }
    const event = (uri: unknown, edits: unknown, kind = 'textEditGroup') =>
      editsOfEntry('vscode-chat', entry('event', 'vscode-chat/edit', { name: 'vscode-chat/edit', data: { messageId: 'm', kind, uri, edits, done: true } }));
    const range = { startLineNumber: 1, startColumn: 1, endLineNumber: 1, endColumn: 4 };
    assert.deepStrictEqual(
      event('/p/main.ts', [
        [{ text: 'fixed', range }],
        [
          { text: '', range },
          { text: 'two\nlines', range },
        ],
      ]),
      [
        {
          path: '/p/main.ts',
          changes: [
            { kind: 'written', newText: 'fixed' },
            { kind: 'written', newText: 'two\nlines' },
          ],
        },
      ],
    );
    assert.deepStrictEqual(event('file:///p/with%20space.ts', [[{ text: 'x', range }]]), [
      { path: '/p/with space.ts', changes: [{ kind: 'written', newText: 'x' }] },
    ]);
    assert.deepStrictEqual(event('C:\\p\\a.ts', [[{ text: 'x', range }]]), [{ path: 'C:\\p\\a.ts', changes: [{ kind: 'written', newText: 'x' }] }]);
    assert.deepStrictEqual(event('untitled:Untitled-1', [[{ text: 'x', range }]]), []);
    assert.deepStrictEqual(event('/p/n.ipynb', [[{ text: 'x', range }]], 'notebookEditGroup'), []);
    assert.deepStrictEqual(event(null, [[{ text: 'x', range }]]), []);
    assert.deepStrictEqual(event('/p/a', [[{ range }]]), []);
    assert.deepStrictEqual(
      editsOfEntry(
        'claude-code',
        entry('event', 'vscode-chat/edit', { name: 'vscode-chat/edit', data: { kind: 'textEditGroup', uri: '/p', edits: [[{ text: 'x' }]] } }),
      ),
      [],
    );
  });

  it("reads a tool only in its own agent's table, and only a tool_call", () => {
    assert.deepStrictEqual(edits('codex', 'Edit', { file_path: '/p/a', old_string: 'a', new_string: 'b' }), []);
    assert.deepStrictEqual(edits('unknown-agent', 'Edit', { file_path: '/p/a', old_string: 'a', new_string: 'b' }), []);
    const result = entry('tool_result', 'Edit', {
      messageId: 'm',
      toolCallId: 'c',
      status: 'ok',
      output: 'ok',
      input: { file_path: '/p/a', old_string: 'a', new_string: 'b' },
    });
    assert.deepStrictEqual(editsOfEntry('claude-code', result), []);
    assert.deepStrictEqual(edits('claude-code', 'constructor', {}), []);
    assert.deepStrictEqual(edits('claude-code', '__proto__', {}), []);
  });

  describe('malformed and hostile arguments give [] and never throw', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 10_000; i++) deep = { file_path: deep, old_string: [deep], edits: [deep] };
    const hostile: [string, string, unknown][] = [
      ['agent-tape', 'apply_edit', { path: '', newText: 'x' }],
      ['agent-tape', 'apply_edit', { path: 'a', oldText: '', newText: 'x' }],
      ['agent-tape', 'apply_edit', { path: 'a' }],
      ['claude-code', 'Edit', { file_path: '/p/a', old_string: 1, new_string: 'b' }],
      ['claude-code', 'Edit', { file_path: '/p/a', old_string: 'a', new_string: 'b', replace_all: 'yes' }],
      ['claude-code', 'Edit', 'file_path=/p/a'],
      ['claude-code', 'Edit', null],
      ['claude-code', 'Edit', deep],
      ['claude-code', 'MultiEdit', { file_path: '/p/a', edits: [] }],
      ['claude-code', 'MultiEdit', { file_path: '/p/a', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'a' }] }],
      ['claude-code', 'MultiEdit', deep],
      ['claude-code', 'Write', { file_path: ['/p/a'], content: 'x' }],
      ['codex', 'apply_patch', '*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n'],
      ['codex', 'apply_patch', { input: 42 }],
      ['codex', 'apply_patch', deep],
      ['codex', 'shell', { command: 'apply_patch' }],
      ['codex', 'shell', { command: ['apply_patch', 7] }],
      ['gemini', 'replace', { file_path: '/p/a', old_string: 'a', new_string: 'b', expected_replacements: 0 }],
      ['gemini', 'write_file', { file_path: '/p/a' }],
      ['opencode', 'multiedit', { edits: [{ filePath: '/p/a', oldString: 'a', newString: 'b' }] }],
      ['opencode', 'apply_patch', { patchText: 'nope' }],
      ['cline', 'replace_in_file', { path: 'a', diff: '------- SEARCH\na\n=======\nb\n' }],
      ['cline', 'replace_in_file', { path: 'a', diff: { toString: 'x' } }],
      ['roo', 'apply_diff', { args: '<file><path>a</path><diff><content>------- SEARCH\na\n=======\n</content></diff></file>' }],
      ['roo', 'apply_diff', { args: '<file><path></path><diff><content>------- SEARCH\na\n=======\nb\n+++++++ REPLACE</content></diff></file>' }],
      ['kilo', 'insert_content', { path: 'a', content: '' }],
      ['roo', 'search_and_replace', { path: 'a', operations: '[{"search": "a", "replace": ' }],
      ['roo', 'search_and_replace', { path: 'a', operations: '['.repeat(100_000) + ']'.repeat(100_000) }],
      ['roo', 'search_and_replace', { path: 'a', operations: [] }],
      ['roo', 'search_and_replace', { path: 'a', operations: [{ search: '', replace: 'x' }] }],
      ['copilot-cli', 'edit', { path: '/p/a', old_str: '', new_str: 'x' }],
      ['copilot-cli', 'create', { path: '/p/a' }],
      ['vscode-chat', 'replace_string_in_file', { filePath: '/p/a', oldString: '', newString: 'x' }],
      ['vscode-chat', 'multi_replace_string_in_file', { replacements: [{ filePath: '/p/a', oldString: 'a' }] }],
    ];
    for (const [i, [agent, name, input]] of hostile.entries())
      it(`${agent} ${name}, case ${i + 1}`, () => {
        assert.deepStrictEqual(edits(agent, name, input), []);
      });

    it('a payload that is not a tool call', () => {
      assert.deepStrictEqual(editsOfEntry('claude-code', entry('tool_call', 'Edit', { name: 5, input: {} })), []);
      assert.deepStrictEqual(editsOfEntry('claude-code', entry('tool_call', 'Edit', {})), []);
    });
  });
});
