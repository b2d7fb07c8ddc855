/**
 * The context assembly policy `tape-context` v1 (SPEC 2.5, 2.6). Its name and version go into every
 * ViewManifest: a replay rebuilds a request with the policy that built it, so any change to what
 * this policy sends (order, budget rules, caps, reasons) takes a new version.
 */
export const TAPE_CONTEXT_POLICY = { name: 'tape-context', version: 1 } as const;

/**
 * The code that applied the policy; bumped for a change that may change a request without changing
 * a rule of the policy. `@2` honours the amendments of compactions (pins, edited summaries, undos).
 */
export const BUILDER_VERSION = 'agent-tape/assemble@2';
/** The builder before amendments: verify and re-runs rebuild the requests it recorded with it. */
export const BUILDER_VERSION_BEFORE_AMENDMENTS = 'agent-tape/assemble@1';

/**
 * Tokens kept free beside the output: the prompt is an estimate (characters per token unless the
 * server calibrated it) and chat templates add tokens nobody counted. A small window would lose too
 * much to a fixed margin, so the reserve is the smaller of a fixed count and a share of the window.
 */
const RESERVE_TOKENS = 1024;
const RESERVE_SHARE = 0.05;

export const reserveFor = (contextWindow: number): number => Math.min(RESERVE_TOKENS, Math.floor(contextWindow * RESERVE_SHARE));

/**
 * A tool result is stored on the tape whole (up to the tool cap, 64 KiB) but sent capped at this
 * many UTF-8 bytes: one large file read must not crowd out the rest of the history, and the model
 * can ask for a narrower range, or read the whole output back with `tape_context`.
 */
export const CONTEXT_TOOL_RESULT_MAX_BYTES = 16 * 1024;

/** Why an item is in the context (the manifest's `included[].reason`). */
export const INCLUDED_REASONS = {
  systemPrompt: 'system_prompt',
  checkpoint: 'checkpoint',
  history: 'history',
  /** A tool result sent shorter than it is on the tape. */
  capped: 'tool_result_capped',
  /** The placeholder answer to a call whose result was never recorded. */
  interrupted: 'interrupted',
  /** The last user message: what this request answers. */
  input: 'input',
  /** Facts or an entry the user pinned to the compaction in force, after its checkpoint. */
  pinned: 'pinned',
} as const;
