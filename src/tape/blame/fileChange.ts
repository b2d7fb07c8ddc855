/**
 * What an edit did to one file, as the attribution reads it. Every agent's edit tools (Claude
 * Code's Edit, Codex's apply_patch hunks, Cline's SEARCH/REPLACE blocks, our own apply_edit, …) and
 * our agent's checkpoints come down to these few kinds, so the attribution knows no agent.
 */
export type FileChange =
  /**
   * `oldText` became `newText` where it stood. Neither need start or end at a line break (an
   * agent's old_string often is part of a line). `all`: every occurrence was replaced.
   */
  | { kind: 'replace'; oldText: string; newText: string; all: boolean }
  /** The whole file was written with `content` (a create or an overwrite). */
  | { kind: 'write'; content: string }
  /**
   * The file held exactly `content` at this point (a checkpoint). `claimUnmatched`: lines the file
   * gained between this point and the next known one that no edit on the tape explains were
   * written by this event's origin (a `turn_start` checkpoint: the turn changed them, by a command
   * say); false: they are a person's (a `turn_end` checkpoint: changed after the turn).
   */
  | { kind: 'known'; content: string; claimUnmatched: boolean }
  /**
   * Text written where the old text is not recorded (VS Code chat's text edits, whose ranges name a
   * version of the document we do not have): its lines are claimed where they can be placed
   * without doubt, and nothing before it can be followed through it.
   */
  | { kind: 'written'; newText: string }
  /** The file was deleted. */
  | { kind: 'delete' };

/** A change with whoever made it; `origin` is null for a change nobody on the tape made. */
export interface FileEvent<O> {
  change: FileChange;
  origin: O | null;
}

/** One tool call's effect on one file: its changes in the order they apply, then a rename. */
export interface FileEdit {
  /** The path as the call wrote it: absolute, or relative to the folder the session ran in. */
  path: string;
  changes: FileChange[];
  /** Where the file was moved after the changes (Codex's `*** Move to:`), as written. */
  movedTo?: string;
}
