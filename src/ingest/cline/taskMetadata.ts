import * as z from 'zod';

/**
 * What a task's side files say of it: Cline's `task_metadata.json` (`model_usage`, the model of
 * each stretch of the task) and Roo Code's `history_item.json` (3.49+: the HistoryItem the
 * extension keeps for its history list, with the workspace, and a subtask's parent and a parent's
 * children, `childIds`, from 3.35). A field that does not read is left out.
 */

const modelUsage = z.looseObject({ ts: z.number().finite(), model_id: z.string().min(1) });
const metadata = z.looseObject({ model_usage: z.array(z.unknown()).optional() });

/** The model Cline's metadata says was in use at a time (the last one chosen before it), if it names any. */
export function modelAtOf(value: unknown): (ts: number) => string | undefined {
  const usage = (metadata.safeParse(value).data?.model_usage ?? []).flatMap((u) => modelUsage.safeParse(u).data ?? []).sort((a, b) => a.ts - b.ts);
  return (ts) => {
    let model: string | undefined;
    for (const u of usage) if (u.ts <= ts || model === undefined) model = u.model_id;
    return model;
  };
}

const taskId = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/);

const historyItem = z.looseObject({
  task: z.string().optional(),
  workspace: z.string().min(1).optional(),
  // Cline's HistoryItem (in its state/taskHistory.json)
  cwdOnTaskInitialization: z.string().min(1).optional(),
  parentTaskId: z.string().optional(),
  rootTaskId: z.string().optional(),
  childIds: z.array(z.unknown()).optional(),
  mode: z.string().optional(),
});

export interface TaskRecord {
  task?: string;
  workspace?: string;
  parentTaskId?: string;
  /** Task ids only: each names a sibling folder, so nothing that could lead elsewhere. */
  childIds: string[];
  mode?: string;
}

/** A HistoryItem (Roo Code's history_item.json, an entry of Cline's taskHistory.json) as far as it reads. */
export function taskRecordOf(value: unknown): TaskRecord {
  const h = historyItem.safeParse(value).data;
  if (h === undefined) return { childIds: [] };
  const id = (v: unknown): string | undefined => taskId.safeParse(v).data;
  return {
    ...(h.task !== undefined ? { task: h.task } : {}),
    ...((h.workspace ?? h.cwdOnTaskInitialization) !== undefined ? { workspace: h.workspace ?? h.cwdOnTaskInitialization } : {}),
    ...(id(h.parentTaskId) !== undefined ? { parentTaskId: id(h.parentTaskId) } : {}),
    childIds: [...new Set((h.childIds ?? []).flatMap((c) => id(c) ?? []))],
    ...(h.mode !== undefined ? { mode: h.mode } : {}),
  };
}

/** Whether a string may name a task folder beside another (a subtask's id in its parent's result). */
export const isTaskId = (v: string): boolean => taskId.safeParse(v).success;
