import { SUBAGENT_LINKED, SUBAGENT_START } from '../tape/entryNames';
import * as z from 'zod';
import type { TapeReader } from '../store/lineage';
import { linkData, receiptOf, subagentStartState } from '../tape/fork';
import { oneLine } from '../tape/oneLine';
import { TITLE_MAX_CHARS } from '../tape/projections/title';

/** A task is shown in a few lines under its subagent's title; the whole of it is the child's first message. */
export const TASK_MAX_CHARS = 600;

/** What a subagent was asked to do: a title for lists, and the task itself when it says more. */
export interface SubagentTask {
  title: string;
  task: string | null;
}

/**
 * The inputs of the tools that start subagents, as far as they name the task: Claude Code's Task
 * (`description`, a few words, and `prompt`), our own run_subagent (`task`), VS Code's chat
 * subagents (`description`, `prompt`). Anything else in the input is passed over.
 */
const spawningInput = z.looseObject({
  description: z.string().optional(),
  prompt: z.string().optional(),
  task: z.string().optional(),
});

const text = (s: string | undefined): string | null => (s === undefined || s.trim() === '' ? null : s);

/**
 * The tasks of one parent's subagents. The child's own title would not do: our run_subagent's
 * child starts with the same preamble every time, and another agent's child with its whole prompt.
 * So the task comes from the child's `subagent/start` anchor (ours), else from the parent's tool
 * call that started it (the anchor's `toolCallId`, else the one the parent's link to the child
 * carries, as ingested links do); the title from that call's short description, else from the
 * task. The parent's tool calls and links are read once, when first needed.
 */
export class SubagentTasks {
  /** The spawning call's entry by tool call id, and each linked child's spawning call id. */
  private known: { calls: Map<string, number>; spawnedBy: Map<string, string> } | undefined;

  constructor(
    private readonly reader: TapeReader,
    private readonly parentSessionId: string,
  ) {}

  of(childSessionId: string): SubagentTask | null {
    const [anchor] = this.reader.entries(childSessionId, { kind: 'anchor', name: SUBAGENT_START, limit: 1 });
    const parsed = anchor === undefined ? undefined : subagentStartState.safeParse((anchor.payload as { state?: unknown }).state);
    const start = parsed?.success ? parsed.data : undefined;
    const input = this.inputOf(start?.toolCallId ?? this.parent().spawnedBy.get(childSessionId));
    const task = text(start?.task) ?? text(input?.prompt) ?? text(input?.task);
    const title = text(input?.description) ?? task;
    if (title === null) return null;
    return { title: oneLine(title, TITLE_MAX_CHARS), task: task === null ? null : oneLine(task, TASK_MAX_CHARS) };
  }

  private parent(): { calls: Map<string, number>; spawnedBy: Map<string, string> } {
    if (this.known !== undefined) return this.known;
    const calls = new Map<string, number>();
    for (const r of this.reader.foldRows(this.parentSessionId, 0)) if (r.kind === 'tool_call' && r.toolCallId !== null) calls.set(r.toolCallId, r.entryId);
    const spawnedBy = new Map<string, string>();
    for (const e of this.reader.entries(this.parentSessionId, { kind: 'event', name: SUBAGENT_LINKED })) {
      const link = receiptOf(e, SUBAGENT_LINKED, linkData);
      if (typeof link?.toolCallId === 'string') spawnedBy.set(link.childSessionId, link.toolCallId);
    }
    return (this.known = { calls, spawnedBy });
  }

  private inputOf(toolCallId: string | undefined): z.infer<typeof spawningInput> | undefined {
    if (toolCallId === undefined) return undefined;
    const entryId = this.parent().calls.get(toolCallId);
    if (entryId === undefined) return undefined;
    const parsed = spawningInput.safeParse((this.reader.requireEntry(this.parentSessionId, entryId).payload as { input?: unknown }).input);
    return parsed.success ? parsed.data : undefined;
  }
}
