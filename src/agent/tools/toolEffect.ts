/**
 * What a call of a tool may change, declared once on each tool (`Tool.effect`). The loop's
 * checkpoints, the editor's confirmations and trust, and the tools' presentation are all derived
 * from it, so a tool says it once and no list of names has to follow.
 * - `read`: nothing; it reads the workspace or the tape.
 * - `tape`: the session's tape (a handoff anchor), never a file.
 * - `edit`: workspace files, through the workspace port.
 * - `command`: anything a process run in the workspace can change.
 * - `delegate`: whatever the tools it hands a child agent change; each of their calls is asked for on its own.
 */
export const TOOL_EFFECTS = ['read', 'tape', 'edit', 'command', 'delegate'] as const;

export type ToolEffect = (typeof TOOL_EFFECTS)[number];

export const isToolEffect = (value: unknown): value is ToolEffect => (TOOL_EFFECTS as readonly unknown[]).includes(value);

/**
 * True when a call may change workspace files, so a checkpoint comes before it. A tool whose
 * effect is not known (a host's own, another extension's) counts as changing them.
 */
export const mayChangeFiles = (effect: ToolEffect | undefined): boolean => effect !== 'read' && effect !== 'tape';

/** True when the user is asked before each call and an untrusted workspace is not offered the tool. */
export const asksFirst = (effect: ToolEffect | undefined): boolean => effect === 'edit' || effect === 'command';
