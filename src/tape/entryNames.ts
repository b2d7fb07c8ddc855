/**
 * The tape's vocabulary: every entry name that more than one place writes or looks for, in one
 * place, so a reader of the tape (the fold, a projection, an analysis, the store, an ingest, the
 * inspector) and its writer agree by construction. The files named beside each group say what the
 * entries mean and hold their builders and schemas. Names are `area/what`; `message/*` and
 * `error/*` are checked by the entry schema (./entry.ts). An agent's own events that only its
 * reader writes and nothing reads (`vscode-chat/references`) are named in its folder of src/ingest.
 */

/** Sessions (./entry.ts, ./append.ts): the anchor every session starts with (SPEC 2.2). */
export const SESSION_START = 'session/start';
/** Provenance key of the session/start anchor, reserved for it so it is written once. */
export const BOOTSTRAP_KEY = SESSION_START;
/** A session's title (./projections/title.ts); the last one is in force. */
export const TITLE_EVENT = 'session/title';
/** What an ingested session is: agent, model, folder and source (src/ingest). */
export const SESSION_META = 'session/meta';
/** A host's own chat history written into a session after the fact (src/agent/backfill.ts). */
export const BACKFILLED_EVENT = 'session/backfilled';

/** The system prompt; the last one on the tape is the one in force. */
export const SYSTEM_PROMPT = 'system/prompt';
/** The tool definitions a request offered, content-addressed (./toolsEntry.ts). */
export const SYSTEM_TOOLS = 'system/tools';

/** A turn's bounds (./turnEntries.ts). */
export const TURN_START = 'turn/start';
export const TURN_END = 'turn/end';
/** One physical model request, retries included: what was billed (./projections/tokenUsage.ts). */
export const ATTEMPT_EVENT = 'provider/attempt';
/** The ViewManifest of one model request (./manifest.ts). */
export const VIEW_ASSEMBLED = 'view/assembled';

/** A tool call that failed, and a model request that failed (./turnEntries.ts). */
export const TOOL_ERROR = 'error/tool';
export const PROVIDER_ERROR = 'error/provider';

/** The event that takes a message out of the effective view (until a later revision of it). */
export const RETRACTED_EVENT = 'message/retracted';

/**
 * Amendments of the compaction in force (./anchorFold.ts): each names the anchor it amends and
 * applies to the reconstruction anchor in force when it is appended.
 */
export const PIN_EVENT = 'compaction/pin';
export const SUMMARY_EDIT_EVENT = 'compaction/summary-edit';
export const UNDO_EVENT = 'compaction/undo';
export const AMENDMENT_EVENTS: readonly string[] = [PIN_EVENT, SUMMARY_EDIT_EVENT, UNDO_EVENT];

/** Forks, merges, discards and subagent links (./fork.ts, SPEC 2.8). */
export const FORK_START = 'fork/start';
export const FORK_MERGE = 'fork/merge';
export const FORK_DISCARD = 'fork/discard';
/** The anchor a subagent's session starts with: its task, not a copy of the parent's context. */
export const SUBAGENT_START = 'subagent/start';
export const SUBAGENT_LINKED = 'subagent/linked';

/** The text edits VS Code's chat recorded for a response (src/ingest/vscodeChat, read by ./blame/vscodeChatEdits.ts). */
export const VSCODE_CHAT_EDIT_EVENT = 'vscode-chat/edit';

/** The workspace's checkpoints and restores (./workspaceCheckpoint.ts); the snapshots are never on the tape. */
export const WORKSPACE_CHECKPOINT = 'workspace/checkpoint';
export const WORKSPACE_RESTORED = 'workspace/restored';
export const RESTORE_FAILED = 'workspace/restore-failed';
export const CHECKPOINTS_OFF = 'workspace/checkpoints-off';

/** A re-run of one recorded request (./evaluation/rerunEntries.ts). */
export const RERUN_REQUEST = 'rerun/request';
/** An evaluation of a session, a session of its own (./evaluation/evaluationEntries.ts). */
export const EVAL_START = 'eval/start';
export const EVAL_REQUEST = 'eval/request';
export const EVAL_SUMMARY = 'eval/summary';
