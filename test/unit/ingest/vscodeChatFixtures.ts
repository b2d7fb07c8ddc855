import * as fs from 'fs';
import * as path from 'path';

/**
 * VS Code chat sessions as VS Code 1.139 writes them (chatModel.ts ISerializableChatData,
 * chatSessionOperationLog.ts for the log's fields, objectMutationLog.ts for its entries): a
 * Copilot Chat agent-mode request with tool-call rounds, thinking, an edit, inline references and
 * token figures; an ask-mode request; and the log VS Code appends while a request runs.
 */

export const VSC_SESSION = '5d3c1c36-2f0b-4c57-9d1e-7f3a2b9c0e11';
export const T0 = Date.parse('2026-03-02T10:00:00.000Z');
export const WORKSPACE = '/work/app';

const uri = (p: string) => ({ $mid: 1, fsPath: p, external: `file://${p}`, path: p, scheme: 'file' });
const md = (value: string) => ({ value, supportThemeIcons: false, supportHtml: false, supportAlertSyntax: false });

const copilotAgent = (id: string, name: string) => ({
  extensionId: { value: 'GitHub.copilot-chat', _lower: 'github.copilot-chat' },
  extensionVersion: '0.40.0',
  publisherDisplayName: 'GitHub',
  extensionPublisherId: 'GitHub',
  extensionDisplayName: 'GitHub Copilot Chat',
  id,
  name,
  fullName: 'GitHub Copilot',
  isDefault: true,
  locations: ['panel'],
  modes: ['agent', 'ask'],
  slashCommands: [],
  disambiguation: [],
  metadata: { themeIcon: { id: 'copilot' }, hasFollowups: false },
});

const message = (text: string) => ({
  text,
  parts: [
    {
      range: { start: 0, endExclusive: text.length },
      editorRange: { startLineNumber: 1, startColumn: 1, endLineNumber: 1, endColumn: text.length + 1 },
      text,
      kind: 'text',
    },
  ],
});

/** The agent-mode request: Copilot read a file, edited it (rounds 1 and 2), ran the tests through another path, then answered. */
export function agentRequest(): Record<string, unknown> {
  const main = `${WORKSPACE}/src/main.ts`;
  return {
    requestId: 'request_a1',
    timestamp: T0 + 1_000,
    agent: copilotAgent('github.copilot.editsAgent', 'agent'),
    modelId: 'copilot/claude-sonnet-4',
    responseId: 'response_a1',
    responseTimestamp: T0 + 1_050,
    result: {
      timings: { firstProgress: 500, totalElapsed: 4_000 },
      metadata: {
        toolCallRounds: [
          {
            id: 'round-1',
            response: 'I will read the file first.',
            toolInputRetry: 0,
            toolCalls: [{ name: 'read_file', arguments: JSON.stringify({ filePath: main, startLine: 1, endLine: 20 }), id: 'toolu_read1__vscode-1' }],
            timestamp: T0 + 1_100,
          },
          {
            id: 'round-2',
            response: '',
            toolInputRetry: 0,
            toolCalls: [
              { name: 'replace_string_in_file', arguments: JSON.stringify({ filePath: main, oldString: 'bug', newString: 'fixed' }), id: 'toolu_edit1' },
            ],
            timestamp: T0 + 1_200,
          },
          { id: 'round-3', response: 'Fixed the bug in main.ts.', toolInputRetry: 0, toolCalls: [], timestamp: T0 + 1_300 },
        ],
        toolCallResults: {
          'toolu_read1__vscode-1': { $mid: 20, content: [{ $mid: 21, value: 'const bug = 1;\n' }] },
          toolu_edit1: {
            $mid: 20,
            content: [
              {
                $mid: 22,
                value: {
                  node: { type: 1, ctor: 2, ctorName: 'ToolResult', children: [{ type: 2, priority: 9007199254740991, text: 'The file was edited.' }] },
                },
              },
            ],
          },
        },
        modelMessageId: 'msg-1',
        agentId: 'github.copilot.editsAgent',
      },
    },
    followups: [],
    modelState: { value: 1, completedAt: T0 + 5_000 },
    contentReferences: [{ kind: 'reference', reference: uri(`${WORKSPACE}/README.md`) }],
    codeCitations: [],
    timeSpentWaiting: 0,
    completionTokens: 85,
    promptTokens: 1_200,
    elapsedMs: 3_950,
    modeInfo: { kind: 'agent', isBuiltin: true, modeId: 'agent', telemetryModeId: 'agent' },
    editedFileEvents: [{ uri: uri(main), eventKind: 1 }],
    response: [
      { kind: 'thinking', value: 'The bug is in main.ts; ', id: 'thinking-1', reasoningDurationMs: 800 },
      { kind: 'thinking', value: '' },
      md('I will read the file first.'),
      {
        kind: 'toolInvocationSerialized',
        invocationMessage: md(`Reading [](file://${main})`),
        pastTenseMessage: md(`Read [](file://${main})`),
        isConfirmed: { type: 1 },
        isComplete: true,
        source: { type: 'internal', label: 'Built-In' },
        toolCallId: 'toolu_read1',
        toolId: 'copilot_readFile',
      },
      { kind: 'undoStop', id: 'toolu_edit1' },
      {
        kind: 'toolInvocationSerialized',
        invocationMessage: md('Editing main.ts'),
        pastTenseMessage: md('Edited main.ts'),
        isConfirmed: { type: 4 },
        isComplete: true,
        source: { type: 'internal', label: 'Built-In' },
        toolCallId: 'toolu_edit1',
        toolId: 'copilot_replaceString',
      },
      {
        kind: 'textEditGroup',
        uri: uri(main),
        edits: [[{ text: 'fixed', range: { startLineNumber: 1, startColumn: 7, endLineNumber: 1, endColumn: 10 } }]],
        done: true,
      },
      { kind: 'codeblockUri', uri: uri(main), isEdit: true },
      {
        kind: 'toolInvocationSerialized',
        invocationMessage: md('Running `npm test`'),
        pastTenseMessage: md('Ran `npm test`'),
        isConfirmed: { type: 4 },
        isComplete: true,
        toolSpecificData: {
          kind: 'terminal',
          commandLine: { original: 'npm test' },
          language: 'sh',
          terminalCommandOutput: { text: '3 failing' },
          terminalCommandState: { exitCode: 1 },
        },
        toolCallId: 'tc-terminal-1',
        toolId: 'run_in_terminal',
      },
      md('Fixed the bug in '),
      { kind: 'inlineReference', inlineReference: uri(main) },
      md('.'),
      { kind: 'sparkleGlitter', sparkles: 3 },
    ],
    message: message('Fix the bug in #file:main.ts'),
    variableData: { variables: [{ kind: 'file', id: `file://${main}`, name: 'file:main.ts', value: uri(main) }] },
  };
}

/** An ask-mode request: one answer, figures from the provider, no tools. */
export function askRequest(
  requestId = 'request_b2',
  text = 'Thanks, and the docs?',
  answer = 'The docs are in README.md.',
  at = T0 + 60_000,
): Record<string, unknown> {
  return {
    requestId,
    timestamp: at,
    agent: copilotAgent('github.copilot.default', 'GitHub Copilot'),
    modelId: 'copilot/gpt-4.1',
    responseId: `response_${requestId}`,
    responseTimestamp: at + 20,
    result: {
      timings: { firstProgress: 300, totalElapsed: 900 },
      metadata: { toolCallRounds: [{ id: 'r', response: answer, toolInputRetry: 0, toolCalls: [] }] },
    },
    modelState: { value: 1, completedAt: at + 900 },
    contentReferences: [],
    codeCitations: [],
    completionTokens: 20,
    promptTokens: 1_500,
    response: [md(answer)],
    message: message(text),
    variableData: { variables: [] },
  };
}

/** The serialised model as VS Code's flat `<session>.json` holds it (version 3). */
export function sessionJson(requests: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 3,
    responderUsername: 'GitHub Copilot',
    initialLocation: 'panel',
    requests,
    sessionId: VSC_SESSION,
    creationDate: T0,
    customTitle: 'Fix the main.ts bug',
    hasPendingEdits: false,
    ...extra,
  };
}

/** Mutation log lines, each as VS Code writes it: one JSON entry and a newline. */
export const logLines = (...entries: unknown[]): string => entries.map((e) => `${JSON.stringify(e)}\n`).join('');

/** The first line of a new session's log: the whole state, with no request yet. */
export const initialEntry = () => ({
  kind: 0,
  v: {
    version: 3,
    creationDate: T0,
    initialLocation: 'panel',
    responderUsername: 'GitHub Copilot',
    sessionId: VSC_SESSION,
    hasPendingEdits: false,
    requests: [],
    pendingRequests: [],
    inputState: { attachments: [], mode: { id: 'agent', kind: 'agent' }, inputText: '', selections: [], contrib: {} },
  },
});

/**
 * A request's lines as VS Code appends them while it runs: pushed with its response pending and
 * empty, its parts pushed as they stream, then its result, figures and completion set.
 */
export function requestLines(request: Record<string, unknown>, index: number): { running: string; completing: string } {
  const { response, result, modelState, promptTokens, completionTokens, ...rest } = request as {
    response: unknown[];
    result: unknown;
    modelState: unknown;
    promptTokens: unknown;
    completionTokens: unknown;
  };
  const running = logLines(
    { kind: 2, k: ['requests'], v: [{ ...rest, response: [], modelState: { value: 0 } }] },
    { kind: 2, k: ['requests', index, 'response'], v: response.slice(0, 1) },
    { kind: 2, k: ['requests', index, 'response'], v: response.slice(1) },
  );
  const completing = logLines(
    { kind: 1, k: ['requests', index, 'result'], v: result },
    { kind: 1, k: ['requests', index, 'promptTokens'], v: promptTokens },
    { kind: 1, k: ['requests', index, 'completionTokens'], v: completionTokens },
    { kind: 1, k: ['requests', index, 'modelState'], v: modelState },
  );
  return { running, completing };
}

/** A workspace storage folder as VS Code lays one out: `workspace.json` naming the folder, and `chatSessions/`. */
export function workspaceStorage(root: string, id = 'a1b2c3d4e5f6'): string {
  const dir = path.join(root, 'workspaceStorage', id);
  fs.mkdirSync(path.join(dir, 'chatSessions'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'workspace.json'), JSON.stringify({ folder: `file://${WORKSPACE}` }));
  return dir;
}
