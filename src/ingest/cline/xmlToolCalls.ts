/**
 * The older tool format of Cline, Roo Code and Kilo Code (before native tool calls): the model
 * writes each call as an XML element in its text, `<read_file><path>x</path></read_file>`, and the
 * extension answers in the next user message with a text block `[read_file for 'x'] Result:`
 * followed by the result's blocks. Only the agents' own tool names open a call, as their parsers
 * have it (Cline's parseAssistantMessageV2, Roo's parseAssistantMessage): any other tag is text.
 */

/** Every tool name the three agents' XML parsers have known (Cline 3.x ClineDefaultTool, Roo Code and Kilo Code toolNames). */
const XML_TOOL_NAMES = new Set([
  'access_mcp_resource',
  'act_mode_respond',
  'apply_diff',
  'apply_patch',
  'ask_followup_question',
  'attempt_completion',
  'browser_action',
  'codebase_search',
  'condense',
  'delete_file',
  'edit_file',
  'execute_command',
  'fetch_instructions',
  'focus_chain',
  'generate_image',
  'insert_content',
  'list_code_definition_names',
  'list_files',
  'load_mcp_documentation',
  'new_rule',
  'new_task',
  'plan_mode_respond',
  'plan_mode_response',
  'read_file',
  'replace_in_file',
  'report_bug',
  'run_slash_command',
  'search_and_replace',
  'search_files',
  'summarize_task',
  'switch_mode',
  'update_todo_list',
  'use_mcp_tool',
  'web_fetch',
  'web_search',
  'write_to_file',
]);

/**
 * Parameters whose value may hold its own closing tag (a file's content, a diff): they end at the
 * last closing tag in the call, as Cline reads `write_to_file`'s content.
 */
const GREEDY_PARAMS = new Set(['content', 'diff', 'args']);

export interface XmlToolCall {
  name: string;
  input: Record<string, string>;
}

export interface AssistantText {
  /** The text without the calls and the thinking, its pieces joined by blank lines. */
  text: string;
  calls: XmlToolCall[];
  /** `<thinking>` sections the agents' prompts asked the model to write before a call. */
  thinking: string[];
}

const OPEN_TAG = /<([a-z_]+)>/g;
const PARAM_TAG = /\s*<([A-Za-z_][\w-]*)>/y;

function paramsOf(body: string): Record<string, string> {
  const input: Record<string, string> = {};
  let at = 0;
  for (;;) {
    PARAM_TAG.lastIndex = at;
    const open = PARAM_TAG.exec(body);
    if (open === null) break;
    const name = open[1];
    const close = `</${name}>`;
    const start = PARAM_TAG.lastIndex;
    const end = GREEDY_PARAMS.has(name) ? body.lastIndexOf(close) : body.indexOf(close, start);
    if (end < start) break;
    const value = body.slice(start, end);
    // A file's content keeps its own whitespace but the newlines around it, which the format adds.
    input[name] = GREEDY_PARAMS.has(name) ? value.replace(/^\r?\n/, '').replace(/\r?\n$/, '') : value.trim();
    at = end + close.length;
  }
  return input;
}

/** An assistant text's XML tool calls and thinking, and the text around them. A call left unclosed (a cut response) stays text. */
export function parseAssistantText(source: string): AssistantText {
  const pieces: string[] = [];
  const calls: XmlToolCall[] = [];
  const thinking: string[] = [];
  let textFrom = 0;
  OPEN_TAG.lastIndex = 0;
  for (let open = OPEN_TAG.exec(source); open !== null; open = OPEN_TAG.exec(source)) {
    const name = open[1];
    if (name !== 'thinking' && !XML_TOOL_NAMES.has(name)) continue;
    const bodyStart = OPEN_TAG.lastIndex;
    const close = source.indexOf(`</${name}>`, bodyStart);
    if (close < 0) continue;
    pieces.push(source.slice(textFrom, open.index));
    const body = source.slice(bodyStart, close);
    if (name === 'thinking') thinking.push(body.trim());
    else calls.push({ name, input: paramsOf(body) });
    textFrom = close + name.length + 3;
    OPEN_TAG.lastIndex = textFrom;
  }
  pieces.push(source.slice(textFrom));
  return {
    text: pieces
      .map((p) => p.trim())
      .filter((p) => p !== '')
      .join('\n\n'),
    calls,
    thinking,
  };
}

// `[name]` or `[name for '…']` (the description may hold any character, `]` included) then ` Result:`.
const RESULT_HEADER = /^\[([a-z_]+)\b[^\n]*?\] Result:/;

/** A user text block that opens an XML call's result: the tool's name, and what follows the header in the same block. */
export function resultHeaderOf(text: string): { name: string; rest: string } | null {
  const m = RESULT_HEADER.exec(text);
  return m === null ? null : { name: m[1], rest: text.slice(m[0].length).trim() };
}

// What the extension answers for calls it did not run: after the one call a message may make, or after a refusal.
const NOT_RUN = /^(?:Tool \[([a-z_]+)\] was not executed|Skipping tool \[([a-z_]+)\b)/;

/** The tool a user text block says was not run, or null. */
export function notRunToolOf(text: string): string | null {
  const m = NOT_RUN.exec(text);
  return m === null ? null : (m[1] ?? m[2]);
}
