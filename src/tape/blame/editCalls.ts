import * as z from 'zod';
import type { Entry } from '../entry';
import { jsonTextTooDeep } from '../jsonDepth';
import { editsOfPatchCommand } from './applyPatchCommand';
import type { FileChange, FileEdit } from './fileChange';
import { editsOfPatch } from './patchText';
import { editsOfRooDiffArgs } from './rooDiffArgs';
import { changesOfSearchReplace } from './searchReplaceBlocks';
import { editsOfVscodeChatEvent } from './vscodeChatEdits';

/**
 * Which files an agent's edit tool call wrote and how, read from the call's arguments as our ingest
 * keeps them on the tape (`tool_call` payload `{ name, input }`): one table per agent, by tool name,
 * each reader validating its arguments with zod. Arguments that do not say what was written give
 * [] for that call. Whether the call succeeded is for the caller to tell from its result.
 */

type EditReader = (input: unknown) => FileEdit[];

const path = z.string().min(1);
const toolCall = z.looseObject({ name: z.string(), input: z.unknown() });

/** A reader of the arguments `schema` accepts. */
function reader<S extends z.ZodType>(schema: S, edits: (input: z.infer<S>) => FileEdit[]): EditReader {
  return (input) => {
    const parsed = schema.safeParse(input);
    return parsed.success ? edits(parsed.data) : [];
  };
}

/** An old text replaced by a new one; an empty old text is how these agents create a file. */
const replaced = (oldText: string, newText: string, all: boolean): FileChange =>
  oldText === '' ? { kind: 'write', content: newText } : { kind: 'replace', oldText, newText, all };

const written = (content: string): FileChange => ({ kind: 'write', content });

/** A patch as Codex's custom tool gives it (the text itself) or as a function's arguments give it (`{ input }`). */
const patchInput = reader(z.looseObject({ input: z.string() }), (e) => editsOfPatch(e.input));
const patchReader: EditReader = (input) => (typeof input === 'string' ? editsOfPatch(input) : patchInput(input));

const searchReplaceReader = reader(z.looseObject({ path, diff: z.string() }), ({ path, diff }) => {
  const changes = changesOfSearchReplace(diff);
  return changes === null ? [] : [{ path, changes }];
});

/**
 * Roo Code's search_and_replace: one search (`{ path, search, replace, … }`, older) or a list of
 * them (`operations`, as an array or, in the XML form, as JSON text). Every match is replaced; a
 * regex, a case-blind search or a line range matches what only the file knew, so such a call is not read.
 */
const searchOperation = z.looseObject({
  search: z.string().min(1),
  replace: z.string(),
  use_regex: z.unknown().optional(),
  ignore_case: z.unknown().optional(),
  start_line: z.unknown().optional(),
  end_line: z.unknown().optional(),
});
const isLiteral = (op: z.infer<typeof searchOperation>): boolean =>
  [op.use_regex, op.ignore_case].every((flag) => flag === undefined || flag === false || flag === 'false') &&
  op.start_line === undefined &&
  op.end_line === undefined;

function searchAndReplace(input: unknown): FileEdit[] {
  const call = z.looseObject({ path, operations: z.unknown().optional() }).safeParse(input);
  if (!call.success) return [];
  let operations: unknown = call.data.operations === undefined ? [input] : call.data.operations;
  if (typeof operations === 'string') {
    if (jsonTextTooDeep(operations) !== null) return [];
    try {
      operations = JSON.parse(operations);
    } catch {
      return [];
    }
  }
  const ops = z.array(searchOperation).min(1).safeParse(operations);
  if (!ops.success || !ops.data.every(isLiteral)) return [];
  return [{ path: call.data.path, changes: ops.data.map((op) => ({ kind: 'replace', oldText: op.search, newText: op.replace, all: true })) }];
}

const AGENT_TAPE = new Map<string, EditReader>([
  [
    'apply_edit',
    reader(z.looseObject({ path, oldText: z.string().min(1).optional(), newText: z.string() }), ({ path, oldText, newText }) => [
      { path, changes: [oldText === undefined ? written(newText) : { kind: 'replace', oldText, newText, all: false }] },
    ]),
  ],
]);

const claudeEdit = z.looseObject({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() });
const CLAUDE_CODE = new Map<string, EditReader>([
  [
    'Edit',
    reader(claudeEdit.extend({ file_path: path }), (e) => [{ path: e.file_path, changes: [replaced(e.old_string, e.new_string, e.replace_all === true)] }]),
  ],
  [
    'MultiEdit',
    reader(z.looseObject({ file_path: path, edits: z.array(claudeEdit).min(1) }), (e) => [
      { path: e.file_path, changes: e.edits.map((x) => replaced(x.old_string, x.new_string, x.replace_all === true)) },
    ]),
  ],
  ['Write', reader(z.looseObject({ file_path: path, content: z.string() }), (e) => [{ path: e.file_path, changes: [written(e.content)] }])],
]);

const CODEX = new Map<string, EditReader>([
  ['apply_patch', patchReader],
  ['shell', reader(z.looseObject({ command: z.array(z.string()), workdir: z.string().optional() }), (e) => editsOfPatchCommand(e.command, e.workdir))],
  ['exec_command', reader(z.looseObject({ cmd: z.string(), workdir: z.string().optional() }), (e) => editsOfPatchCommand(e.cmd, e.workdir))],
]);

const GEMINI = new Map<string, EditReader>([
  [
    'replace',
    reader(
      z.looseObject({
        file_path: path,
        old_string: z.string(),
        new_string: z.string(),
        expected_replacements: z.number().int().min(1).optional(),
        allow_multiple: z.boolean().optional(),
      }),
      (e) => [{ path: e.file_path, changes: [replaced(e.old_string, e.new_string, e.allow_multiple === true || (e.expected_replacements ?? 1) > 1)] }],
    ),
  ],
  ['write_file', reader(z.looseObject({ file_path: path, content: z.string() }), (e) => [{ path: e.file_path, changes: [written(e.content)] }])],
]);

const opencodeEdit = z.looseObject({ filePath: path, oldString: z.string(), newString: z.string(), replaceAll: z.boolean().optional() });
const opencodePatch = reader(z.looseObject({ patchText: z.string() }), (e) => editsOfPatch(e.patchText));
const OPENCODE = new Map<string, EditReader>([
  ['edit', reader(opencodeEdit, (e) => [{ path: e.filePath, changes: [replaced(e.oldString, e.newString, e.replaceAll === true)] }])],
  [
    // Every edit applies to the call's filePath, whatever its own says (opencode's multiedit.ts).
    'multiedit',
    reader(z.looseObject({ filePath: path, edits: z.array(opencodeEdit.partial({ filePath: true })).min(1) }), (e) => [
      { path: e.filePath, changes: e.edits.map((x) => replaced(x.oldString, x.newString, x.replaceAll === true)) },
    ]),
  ],
  ['write', reader(z.looseObject({ filePath: path, content: z.string() }), (e) => [{ path: e.filePath, changes: [written(e.content)] }])],
  ['patch', opencodePatch],
  ['apply_patch', opencodePatch],
]);

const CLINE_FAMILY = new Map<string, EditReader>([
  ['write_to_file', reader(z.looseObject({ path, content: z.string() }), (e) => [{ path: e.path, changes: [written(e.content)] }])],
  ['replace_in_file', searchReplaceReader],
  [
    'apply_diff',
    (input) => {
      const multi = z.looseObject({ args: z.string() }).safeParse(input);
      return multi.success && !Object.hasOwn(multi.data, 'diff') ? editsOfRooDiffArgs(multi.data.args) : searchReplaceReader(input);
    },
  ],
  // Roo's insert_content puts lines at a line number of a version of the file we do not have.
  [
    'insert_content',
    reader(z.looseObject({ path, content: z.string().min(1) }), (e) => [
      { path: e.path, changes: [{ kind: 'written', newText: e.content.endsWith('\n') ? e.content : `${e.content}\n` }] },
    ]),
  ],
  ['search_and_replace', searchAndReplace],
  ['apply_patch', patchInput],
  ['delete_file', reader(z.looseObject({ path }), (e) => [{ path: e.path, changes: [{ kind: 'delete' }] }])],
]);

const COPILOT_CLI = new Map<string, EditReader>([
  // Its schema requires only `path`; without new_str the old text is deleted.
  [
    'edit',
    reader(z.looseObject({ path, old_str: z.string().min(1), new_str: z.string().optional() }), (e) => [
      { path: e.path, changes: [replaced(e.old_str, e.new_str ?? '', false)] },
    ]),
  ],
  ['create', reader(z.looseObject({ path, file_text: z.string() }), (e) => [{ path: e.path, changes: [written(e.file_text)] }])],
]);

// Copilot Chat's tools, by the name the model calls (a round's call) and by VS Code's tool id (a call only an invocation part records).
const replaceString = z.looseObject({ filePath: path, oldString: z.string().min(1), newString: z.string() });
const replaceStringReader = reader(replaceString, (e) => [{ path: e.filePath, changes: [replaced(e.oldString, e.newString, false)] }]);
const multiReplaceReader = reader(z.looseObject({ replacements: z.array(replaceString).min(1) }), (e) =>
  e.replacements.map((x) => ({ path: x.filePath, changes: [replaced(x.oldString, x.newString, false)] })),
);
const createFileReader = reader(z.looseObject({ filePath: path, content: z.string() }), (e) => [{ path: e.filePath, changes: [written(e.content)] }]);
const VSCODE_CHAT = new Map<string, EditReader>([
  ['replace_string_in_file', replaceStringReader],
  ['copilot_replaceString', replaceStringReader],
  ['multi_replace_string_in_file', multiReplaceReader],
  ['copilot_multiReplaceString', multiReplaceReader],
  ['create_file', createFileReader],
  ['copilot_createFile', createFileReader],
  ['apply_patch', patchInput],
  ['copilot_applyPatch', patchInput],
]);

/** Each agent's edit tools: its ingest format name, or `agent-tape` for our own agent. */
const EDIT_TOOLS = new Map<string, Map<string, EditReader>>([
  ['agent-tape', AGENT_TAPE],
  ['claude-code', CLAUDE_CODE],
  ['codex', CODEX],
  ['gemini', GEMINI],
  ['opencode', OPENCODE],
  ['cline', CLINE_FAMILY],
  ['roo', CLINE_FAMILY],
  ['kilo', CLINE_FAMILY],
  ['copilot-cli', COPILOT_CLI],
  ['vscode-chat', VSCODE_CHAT],
]);

/**
 * The file edits an entry records: a `tool_call` of an edit tool of `agent` (the session's agent:
 * its ingest format name, or `agent-tape`), with its arguments, or an agent's edit event; [] for
 * any other entry or arguments that do not say what was written.
 */
export function editsOfEntry(agent: string, entry: Entry): FileEdit[] {
  if (entry.kind === 'event') return agent === 'vscode-chat' ? editsOfVscodeChatEvent(entry) : [];
  if (entry.kind !== 'tool_call') return [];
  const call = toolCall.safeParse(entry.payload);
  if (!call.success) return [];
  const read = EDIT_TOOLS.get(agent)?.get(call.data.name);
  return read === undefined ? [] : read(call.data.input);
}
