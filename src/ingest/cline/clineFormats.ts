import * as fs from 'fs';
import * as path from 'path';
import { TapeFileError } from '../../store/errors';
import type { NewEntry } from '../../tape/entry';
import { countSkip, sessionMetaEntry, subagentLinkEntry, type Mapped, type MappedSession } from '../format';
import type { SourceFormat } from '../sourceFormat';
import { mapApiHistory, type ApiHistoryMapped, type SubtaskCall } from './apiHistory';
import { attemptEntries, metricsAttempts } from './requests';
import { agentOfTaskFolder, readTaskFiles, readTaskHistory, taskFolderOfPath, type ClineAgent, type TaskFiles } from './taskFolder';
import { isTaskId, modelAtOf, taskRecordOf } from './taskMetadata';
import type { TaskMapping } from './taskMapping';
import { mapUiMessages, SETTLED_AFTER_MS } from './uiMessages';

/**
 * Cline, Roo Code and Kilo Code tasks (taskFolder.ts): one format each, the same files. Followed
 * from Cline v3.89.2 (apps/vscode/src/core/task, shared/ExtensionMessage.ts; v3.30.0 for the XML
 * tool format), Roo Code v3.52.1 (src/core/task-persistence, packages/types; v3.25–v3.40 for the XML
 * format) and Kilo Code 4.x (Roo Code's files, the same types). A task is the session
 * `<agent>:<task id>`. A Roo Code subtask (new_task) is its own session, linked from its parent:
 * reading a task reads the subtasks it names (history_item.json `childIds`, a "Subtask <id>
 * completed" result) from their folders beside it first, so each link freezes the head the child
 * has then; the parent is written again when a subtask ends (its result comes back), so the link
 * is renewed with the child's whole session. A subtask read on its own names its parent in its
 * `session/meta`.
 */

/** Subtasks read with a task at most: an orchestrator's tree, not a loop. */
const MAX_SUBTASKS = 200;

const TIMESTAMP_ID = /^\d{13}$/;

/** A task mapped but for the links to its subtasks, which need the subtasks read first. */
interface MappedTask {
  sessionId: string;
  meta: NewEntry;
  entries: NewEntry[];
  childIds: string[];
  subtasks: SubtaskCall[];
}

/** Entries in time order, those without a time staying after the one before them (the file's order otherwise). */
function inTimeOrder(entries: NewEntry[]): NewEntry[] {
  let carried = -Infinity;
  const keyed = entries.map((e, i) => ({ e, i, t: (carried = e.createdAt ?? carried) }));
  return keyed.sort((a, b) => a.t - b.t || a.i - b.i).map((k) => k.e);
}

function lastModelOf(api: ApiHistoryMapped | undefined): string | undefined {
  const m = [...(api?.messages ?? [])].reverse().find((a) => a.model !== undefined || a.envModel !== undefined);
  return m?.model ?? m?.envModel;
}

function mapTask(agent: ClineAgent, files: TaskFiles, skipped: Record<string, number>): MappedTask {
  const sessionId = `${agent}:${files.taskId}`;
  const m: TaskMapping = { agent, sessionId, skipped };
  const record = taskRecordOf(files.historyItem);
  const modelAt = modelAtOf(files.metadata);
  const firstUi = (files.ui ?? []).find((u): u is { ts: number } => typeof (u as { ts?: unknown } | null)?.ts === 'number');
  // Cline names a task by the time it began.
  const startTime = firstUi?.ts ?? (TIMESTAMP_ID.test(files.taskId) ? Number(files.taskId) : undefined);
  const api = files.api === undefined ? undefined : mapApiHistory(m, files.api, startTime);
  const answeredAt = (ts: number): boolean => api?.messages.some((a) => a.role === 'assistant' && a.ts !== undefined && a.ts >= ts) ?? false;
  const now = Date.now();
  // The extensions write the chat before the first request is in the API history: while a folder's
  // chat is being written without one, the conversation waits for the history (read from the chat
  // now, it would be written again under the history's keys once that is there).
  const waitsForHistory = files.folder && files.uiModifiedAt !== undefined && now - files.uiModifiedAt < SETTLED_AFTER_MS;
  const ui =
    files.ui === undefined
      ? undefined
      : mapUiMessages(m, files.ui, { transcript: api === undefined && !waitsForHistory, answeredAt, modifiedAt: files.uiModifiedAt, now });
  const attempts =
    ui !== undefined
      ? attemptEntries(m, ui.requests, api?.messages ?? [], modelAt)
      : { entries: api === undefined ? [] : metricsAttempts(m, api.messages, modelAt) };
  const entries = inTimeOrder([...(api?.entries ?? []), ...(ui?.entries ?? []), ...attempts.entries]);

  const cwd =
    record.workspace ?? api?.cwd ?? (files.folder ? taskRecordOf(readTaskHistory(path.dirname(files.source)).get(files.taskId)).workspace : undefined);
  const title = ui?.task ?? record.task ?? api?.firstPrompt;
  const model = attempts.model ?? ui?.model ?? lastModelOf(api) ?? modelAt(Infinity);
  const firstTime = entries.reduce<number | undefined>(
    (t, e) => (e.createdAt !== undefined && (t === undefined || e.createdAt < t) ? e.createdAt : t),
    startTime,
  );
  const meta = sessionMetaEntry(
    sessionId,
    {
      agent,
      source: files.source,
      ...(model !== undefined ? { model } : {}),
      ...(cwd !== undefined ? { cwd } : {}),
      ...(title !== undefined && title.trim() !== '' ? { title: title.trim() } : {}),
      ...(record.parentTaskId !== undefined ? { parentSessionId: `${agent}:${record.parentTaskId}` } : {}),
    },
    firstTime,
    { taskId: files.taskId, ...(record.mode !== undefined ? { mode: record.mode } : {}) },
  );
  const subtasks = api?.subtasks ?? [];
  const childIds = [...new Set([...record.childIds, ...subtasks.map((s) => s.childId)])].filter((id) => isTaskId(id) && id !== files.taskId);
  return { sessionId, meta, entries, childIds, subtasks };
}

/** The task's session with a link to each subtask: after the call that started it, else at the end at the subtask's start. */
function linked(agent: ClineAgent, task: MappedTask, childStart: (childId: string) => number | undefined): MappedSession {
  const entries = [...task.entries];
  for (const childId of task.childIds) {
    const call = task.subtasks.find((s) => s.childId === childId);
    const at = call === undefined ? -1 : entries.findIndex((e) => e.kind === 'tool_call' && e.payload.toolCallId === call.toolCallId);
    const data = {
      childSessionId: `${agent}:${childId}`,
      taskId: childId,
      ...(call !== undefined ? { toolCallId: call.toolCallId, messageId: call.messageId } : {}),
    };
    entries.splice(at < 0 ? entries.length : at + 1, 0, subagentLinkEntry(task.sessionId, childId, data, at < 0 ? childStart(childId) : entries[at].createdAt));
  }
  return { sessionId: task.sessionId, entries: [task.meta, ...entries] };
}

/** A task and the subtasks it names, read from their folders beside it, each before the task that links it. */
function readTaskTree(agent: ClineAgent, source: string): Mapped {
  const skipped: Record<string, number> = {};
  const sessions: MappedSession[] = [];
  const seen = new Set<string>();
  const visit = (files: TaskFiles): MappedSession => {
    seen.add(files.source);
    const task = mapTask(agent, files, skipped);
    const starts = new Map<string, number | undefined>();
    for (const childId of files.folder ? task.childIds : []) {
      const dir = path.join(path.dirname(files.source), childId);
      if (seen.has(dir) || !fs.existsSync(dir)) continue;
      if (seen.size > MAX_SUBTASKS) {
        countSkip(skipped, 'subtask/beyond_limit');
        continue;
      }
      try {
        starts.set(childId, visit(readTaskFiles(dir, skipped)).entries[0]?.createdAt);
      } catch (e) {
        // The subtask's own read reports it by name; its parent still reads.
        if (!(e instanceof TapeFileError)) throw e;
        seen.add(dir);
        countSkip(skipped, 'subtask/unreadable');
      }
    }
    const session = linked(agent, task, (id) => starts.get(id));
    sessions.push(session);
    return session;
  };
  visit(readTaskFiles(source, skipped));
  return { sessions, skipped };
}

/** Whether a file's first bytes are a task file's: a list of API messages or of chat messages. */
function looksLikeTaskFile(head: Buffer): boolean {
  const text = head.toString('utf8').trimStart();
  if (!text.startsWith('[')) return false;
  return /^\[\s*\{\s*"(role|ts|type)"\s*:/.test(text) && (/"role"\s*:\s*"(user|assistant)"/.test(text) || /"type"\s*:\s*"(say|ask)"/.test(text));
}

function clineFamilyFormat(agent: ClineAgent): SourceFormat {
  return {
    name: agent,
    sourceOfPath(file) {
      const dir = taskFolderOfPath(file);
      return dir !== null && agentOfTaskFolder(dir) === agent ? dir : null;
    },
    recognizes: (source, head) => agentOfTaskFolder(path.dirname(source)) === agent && looksLikeTaskFile(head),
    read: (source) => Promise.resolve(readTaskTree(agent, source)),
  };
}

export const cline = clineFamilyFormat('cline');
export const roo = clineFamilyFormat('roo');
export const kilo = clineFamilyFormat('kilo');
