import * as fs from 'fs';
import * as path from 'path';

/**
 * Task folders as Cline (v3.89.2, native tool calls), Roo Code (v3.25–v3.30, XML tool calls; v3.52,
 * native calls and delegated subtasks with history_item.json) and Kilo Code write them: the
 * shapes of their Task / MessageStateHandler / task-persistence code, written with
 * JSON.stringify as they do.
 */

export const CLINE_ID = 'saoudrizwan.claude-dev';
export const ROO_ID = 'rooveterinaryinc.roo-cline';
export const KILO_ID = 'kilocode.kilo-code';
export const CWD = '/home/me/proj';

export const CLINE_TASK = '1767323045000';
const T = Number(CLINE_TASK);

export const ROO_TASK = '0b6c7a9e-1f2d-4c3b-9a8e-000000000001';
export const ROO_PARENT = '0b6c7a9e-1f2d-4c3b-9a8e-0000000000a1';
export const ROO_CHILD = '0b6c7a9e-1f2d-4c3b-9a8e-0000000000c1';

const clineEnv = (cwd = CWD): { type: 'text'; text: string } => ({
  type: 'text',
  text: `<environment_details>\n# Visual Studio Code Visible Files\ntest/a.test.ts\n\n# Current Time\n1/2/2026, 3:04:05 AM (UTC, UTC+0:00)\n\n# Current Working Directory (${cwd}) Files\nsrc/\ntest/\n\n# Current Mode\nACT MODE\n</environment_details>`,
});
const clineLaterEnv = {
  type: 'text',
  text: '<environment_details>\n# Visual Studio Code Visible Files\ntest/a.test.ts\n\n# Current Mode\nACT MODE\n</environment_details>',
};
const rooEnv = (model: string, files = true): { type: 'text'; text: string } => ({
  type: 'text',
  text: `<environment_details>\n# VSCode Visible Files\na.ts\n\n# Current Time\n2026-01-02T03:04:05.000Z\n${files ? `\n# Current Workspace Directory (${CWD}) Files\na.ts\nb.ts\n` : ''}\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>${model}</model>\n</environment_details>`,
});

const modelInfo = { modelId: 'claude-sonnet-4-5', providerId: 'anthropic', mode: 'act' };
const req = (ts: number, figures: object, extra: object = {}) => ({
  ts,
  type: 'say',
  say: 'api_req_started',
  text: JSON.stringify({ request: '…', ...figures }),
  ...extra,
});

/** A Cline task with native tool calls: thinking, a read, a failing command, a completion the person answers, a second completion. */
export function clineApiHistory(): object[] {
  return [
    { role: 'user', content: [{ type: 'text', text: '<task>\nFix the failing test\n</task>' }, clineEnv()], ts: T + 1000 },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Look at the test first.', signature: 'sig' },
        { type: 'text', text: "I'll read the test." },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'test/a.test.ts' } },
        { type: 'mystery_block', data: 1 },
      ],
      modelInfo,
      id: 'msg_1',
      metrics: { tokens: { prompt: 100, completion: 20, cached: 60 }, cost: 0.01 },
      ts: T + 3000,
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'test body' }, clineLaterEnv], ts: T + 3100 },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Running it.' },
        { type: 'tool_use', id: 'toolu_2', name: 'execute_command', input: { command: 'npm test', requires_approval: false } },
      ],
      modelInfo,
      id: 'msg_2',
      metrics: { tokens: { prompt: 200, completion: 30, cached: 60 }, cost: 0.02 },
      ts: T + 5000,
    },
    {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'exit 1' }], is_error: true }, clineLaterEnv],
      ts: T + 5100,
    },
    {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_3', name: 'attempt_completion', input: { result: 'Fixed the test.' } }],
      modelInfo,
      id: 'msg_3',
      metrics: { tokens: { prompt: 300, completion: 10, cached: 70 }, cost: 0.03 },
      ts: T + 7000,
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_3',
          content:
            'The user has provided feedback on the results. Consider their input to continue the task, and then attempt completion again.\n<feedback>\nNow add docs\n</feedback>',
        },
        clineLaterEnv,
      ],
      ts: T + 9000,
    },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Docs added.' },
        { type: 'tool_use', id: 'toolu_4', name: 'attempt_completion', input: { result: 'Done with docs.' } },
      ],
      modelInfo,
      id: 'msg_4',
      metrics: { tokens: { prompt: 50, completion: 40, cached: 0 }, cost: 0.004 },
      ts: T + 11000,
    },
  ];
}

/** The same task's chat: four requests with their figures, a checkpoint, the chat's copies of the conversation, an unknown say. */
export function clineUiMessages(): object[] {
  return [
    { ts: T, type: 'say', say: 'task', text: 'Fix the failing test' },
    req(T + 500, { tokensIn: 100, tokensOut: 20, cacheWrites: 10, cacheReads: 50, cost: 0.01 }, { modelInfo }),
    { ts: T + 2000, type: 'say', say: 'reasoning', text: 'Look at the test first.' },
    { ts: T + 2500, type: 'say', say: 'text', text: "I'll read the test." },
    { ts: T + 2600, type: 'say', say: 'tool', text: JSON.stringify({ tool: 'readFile', path: 'test/a.test.ts' }) },
    { ts: T + 3050, type: 'say', say: 'checkpoint_created', lastCheckpointHash: '1f0e2d3c4b5a69788796a5b4c3d2e1f001234567', isCheckpointCheckedOut: false },
    req(T + 3200, { tokensIn: 200, tokensOut: 30, cacheWrites: 0, cacheReads: 60, cost: 0.02 }, { modelInfo }),
    { ts: T + 4000, type: 'say', say: 'text', text: 'Running it.' },
    { ts: T + 4100, type: 'ask', ask: 'command', text: 'npm test' },
    { ts: T + 4200, type: 'ask', ask: 'command_output', text: 'exit 1' },
    { ts: T + 4300, type: 'say', say: 'mystery_say', text: '?' },
    req(T + 5200, { tokensIn: 300, tokensOut: 10, cacheWrites: 5, cacheReads: 70, cost: 0.03 }, { modelInfo }),
    { ts: T + 6000, type: 'say', say: 'completion_result', text: 'Fixed the test.' },
    { ts: T + 6100, type: 'ask', ask: 'completion_result', text: '' },
    { ts: T + 8900, type: 'say', say: 'user_feedback', text: 'Now add docs' },
    req(T + 9100, { tokensIn: 50, tokensOut: 40, cacheWrites: 0, cacheReads: 0, cost: 0.004 }, { modelInfo }),
    { ts: T + 10000, type: 'say', say: 'text', text: 'Docs added.' },
    { ts: T + 10500, type: 'say', say: 'completion_result', text: 'Done with docs.' },
    { ts: T + 10600, type: 'ask', ask: 'completion_result', text: '' },
  ];
}

export const clineMetadata = (): object => ({
  files_in_context: [{ path: 'test/a.test.ts', record_state: 'active', record_source: 'read_tool', cline_read_date: T + 3000, cline_edit_date: null }],
  model_usage: [{ ts: T + 500, model_id: 'claude-sonnet-4-5', model_provider_id: 'anthropic', mode: 'act' }],
  environment_history: [],
});

const R = Date.UTC(2026, 0, 2, 3, 4, 0);

/** A Roo Code task in the XML tool format: thinking in the text, two calls in one message (the second not run), a completion. */
export function rooXmlApiHistory(): object[] {
  return [
    { role: 'user', content: [{ type: 'text', text: '<task>\nList the files\n</task>' }, rooEnv('claude-3-7-sonnet-20250219')], ts: R + 1000 },
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: '<thinking>I should list the folder first.</thinking>\nI will list the files.\n\n<list_files>\n<path>.</path>\n<recursive>false</recursive>\n</list_files>',
        },
      ],
      ts: R + 3000,
    },
    {
      role: 'user',
      content: [{ type: 'text', text: "[list_files for '.'] Result:" }, { type: 'text', text: 'a.ts\nb.ts' }, rooEnv('claude-3-7-sonnet-20250219', false)],
      ts: R + 3100,
    },
    {
      role: 'assistant',
      content: [
        {
          type: 'text',
          text: 'Reading a.ts.\n\n<read_file>\n<path>a.ts</path>\n</read_file>\n\n<write_to_file>\n<path>c.ts</path>\n<content>\nexport const c = "<content>";\n</content>\n<line_count>1</line_count>\n</write_to_file>',
        },
      ],
      ts: R + 5000,
    },
    {
      role: 'user',
      content: [
        { type: 'text', text: "[read_file for 'a.ts'] Result:" },
        { type: 'text', text: '<file><path>a.ts</path>\n<content lines="1-1">\n1 | export {}\n</content>\n</file>' },
        {
          type: 'text',
          text: "Tool [write_to_file] was not executed because a tool has already been used in this message. Only one tool may be used per message. You must assess the first tool's result before proceeding to use the next tool.",
        },
        rooEnv('claude-3-7-sonnet-20250219', false),
      ],
      ts: R + 5100,
    },
    {
      role: 'assistant',
      content: [{ type: 'text', text: '<attempt_completion>\n<result>\nThere are two files.\n</result>\n</attempt_completion>' }],
      ts: R + 7000,
    },
  ];
}

const rooReq = (ts: number, tokensIn: number, tokensOut: number, cacheWrites: number, cacheReads: number, cost: number) => ({
  ts,
  type: 'say',
  say: 'api_req_started',
  text: JSON.stringify({ apiProtocol: 'anthropic', tokensIn, tokensOut, cacheWrites, cacheReads, cost }),
});

export function rooXmlUiMessages(): object[] {
  return [
    { ts: R, type: 'say', say: 'text', text: 'List the files' },
    rooReq(R + 500, 1200, 40, 1000, 0, 0.005),
    { ts: R + 2500, type: 'say', say: 'text', text: 'I will list the files.', partial: false },
    { ts: R + 2600, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'listFilesTopLevel', path: '.', content: 'a.ts\nb.ts' }) },
    {
      ts: R + 3050,
      type: 'say',
      say: 'checkpoint_saved',
      text: '2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b',
      checkpoint: { from: '0000000000000000000000000000000000000000', to: '2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b' },
    },
    rooReq(R + 3200, 1300, 60, 0, 1000, 0.004),
    rooReq(R + 5200, 1400, 20, 0, 1200, 0.003),
    { ts: R + 6500, type: 'say', say: 'completion_result', text: 'There are two files.' },
    { ts: R + 6600, type: 'ask', ask: 'completion_result', text: '' },
  ];
}

/** A Roo Code 3.52 orchestrator task that delegated one subtask (new_task), with its history items. */
export function rooParentFiles(): { api: object[]; ui: object[]; historyItem: object } {
  return {
    api: [
      { role: 'user', content: [{ type: 'text', text: '<user_message>\nPlan and build it\n</user_message>' }, rooEnv('claude-sonnet-4-5')], ts: R + 1000 },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Delegating the build.' },
          { type: 'tool_use', id: 'toolu_nt', name: 'new_task', input: { mode: 'code', message: 'Build it', todos: '' } },
        ],
        ts: R + 3000,
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 'toolu_nt', content: `Subtask ${ROO_CHILD} completed.\n\nResult:\nBuilt it.` }],
        ts: R + 60000,
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_done', name: 'attempt_completion', input: { result: 'All done.' } }], ts: R + 62000 },
    ],
    ui: [
      { ts: R, type: 'say', say: 'text', text: 'Plan and build it' },
      rooReq(R + 500, 900, 30, 800, 0, 0.004),
      { ts: R + 59000, type: 'say', say: 'subtask_result', text: 'Built it.' },
      rooReq(R + 60500, 1000, 15, 0, 800, 0.002),
      { ts: R + 61500, type: 'say', say: 'completion_result', text: 'All done.' },
      { ts: R + 61600, type: 'ask', ask: 'completion_result', text: '' },
    ],
    historyItem: {
      id: ROO_PARENT,
      rootTaskId: undefined,
      number: 1,
      ts: R + 61600,
      task: 'Plan and build it',
      tokensIn: 1900,
      tokensOut: 45,
      totalCost: 0.006,
      workspace: CWD,
      mode: 'orchestrator',
      status: 'active',
      childIds: [ROO_CHILD],
      completedByChildId: ROO_CHILD,
    },
  };
}

export function rooChildFiles(): { api: object[]; ui: object[]; historyItem: object } {
  return {
    api: [
      { role: 'user', content: [{ type: 'text', text: '<user_message>\nBuild it\n</user_message>' }, rooEnv('claude-sonnet-4-5')], ts: R + 4000 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_c1', name: 'execute_command', input: { command: 'make' } }], ts: R + 6000 },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_c1', content: 'built' }, rooEnv('claude-sonnet-4-5', false)], ts: R + 6100 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_c2', name: 'attempt_completion', input: { result: 'Built it.' } }], ts: R + 8000 },
    ],
    ui: [
      { ts: R + 3500, type: 'say', say: 'text', text: 'Build it' },
      rooReq(R + 3600, 700, 25, 600, 0, 0.003),
      rooReq(R + 6200, 750, 12, 0, 600, 0.001),
      { ts: R + 7900, type: 'say', say: 'completion_result', text: 'Built it.' },
    ],
    historyItem: {
      id: ROO_CHILD,
      rootTaskId: ROO_PARENT,
      parentTaskId: ROO_PARENT,
      number: 2,
      ts: R + 8000,
      task: 'Build it',
      tokensIn: 1450,
      tokensOut: 37,
      totalCost: 0.004,
      workspace: CWD,
      mode: 'code',
      status: 'completed',
    },
  };
}

/** The task folder `<root>/<extension id>/tasks/<id>/` with the files given (none left out is written). */
export function writeTask(
  root: string,
  extensionId: string,
  taskId: string,
  files: { api?: object[]; ui?: object[]; metadata?: object; historyItem?: object },
): string {
  const dir = path.join(root, extensionId, 'tasks', taskId);
  fs.mkdirSync(dir, { recursive: true });
  if (files.api) fs.writeFileSync(path.join(dir, 'api_conversation_history.json'), JSON.stringify(files.api));
  if (files.ui) fs.writeFileSync(path.join(dir, 'ui_messages.json'), JSON.stringify(files.ui));
  if (files.metadata) fs.writeFileSync(path.join(dir, 'task_metadata.json'), JSON.stringify(files.metadata, null, 2));
  if (files.historyItem) fs.writeFileSync(path.join(dir, 'history_item.json'), JSON.stringify(files.historyItem, null, '\t'));
  return dir;
}

export const writeClineTask = (root: string): string =>
  writeTask(root, CLINE_ID, CLINE_TASK, { api: clineApiHistory(), ui: clineUiMessages(), metadata: clineMetadata() });
export const writeRooXmlTask = (root: string, extensionId = ROO_ID): string =>
  writeTask(root, extensionId, ROO_TASK, { api: rooXmlApiHistory(), ui: rooXmlUiMessages() });
