import * as z from 'zod/mini';
import { MAX_LINK_LENGTH } from './openableLink';
import { replyMessage, requestMessage, type RequestMap } from './requestMap';

/**
 * The Tape Inspector's messages between the extension host and its webview. Both sides parse what
 * they receive with these schemas. The host keeps the tape; the webview asks for what it shows
 * (a page of entry rows, one entry's JSON, a diff, a view) with the requests of
 * `inspectorRequests`, each answered by its reply, and hears pushes (deltas as the tape grows, a
 * replay's cursor), so a big tape never crosses the boundary whole. Every text from the tape is
 * plain text to the webview.
 */

const KINDS = ['message', 'system', 'tool_call', 'tool_result', 'error', 'anchor', 'event'] as const;
const kind = z.enum(KINDS);
const entryId = z.number();

export const VIEWS = ['transcript', 'entries', 'anchors', 'requests', 'projections', 'lineage', 'evaluations'] as const;
export const inspectorView = z.enum(VIEWS);
export type InspectorView = z.infer<typeof inspectorView>;

/** One raw entry as a list row: its header and a one-line summary of its payload (at most 200 characters). */
export const entryRow = z.object({ entryId, kind, name: z.string(), summary: z.string(), createdAt: z.number() });
export type EntryRow = z.infer<typeof entryRow>;

export const entryListFilter = z.object({
  kinds: z.optional(z.array(kind)),
  /** A prefix of the entry name, e.g. `message/` or `handoff/`. */
  name: z.optional(z.string()),
  /** Full-text query (the core's ranked search, CJK included); rows then come best first. */
  text: z.optional(z.string()),
});
export type EntryListFilter = z.infer<typeof entryListFilter>;

const MARKERS = ['revised', 'retracted', 'compacted', 'merged', 'inherited', 'pending', 'error'] as const;

/** A workspace checkpoint's id in the store beside the tape (a git commit id). */
const checkpointId = z.string();
/** One file a turn changed, with its added and removed lines (null for a binary file). */
const fileChange = z.object({
  /** Workspace-relative, `/`-separated. */
  path: z.string(),
  change: z.enum(['added', 'modified', 'deleted']),
  added: z.nullable(z.number()),
  removed: z.nullable(z.number()),
});

/** What one turn did to the workspace's files: from its `turn_start` checkpoint to its `turn_end` one. */
const turnFileChanges = z.object({
  beforeId: checkpointId,
  afterId: checkpointId,
  /** The `turn_end` checkpoint's entry: the files as the turn left them, where "Restore Files to Here" on this item restores. */
  entryId,
  files: z.array(fileChange),
  /** Changed files beyond the ones listed (an event lists at most 1,000). */
  filesOmitted: z.number(),
});

export const transcriptItem = z.object({
  /** The entry of the version shown. */
  entryId,
  messageId: z.string(),
  role: z.string(),
  status: z.string(),
  /** The text, cut at 4,000 characters (`cut` says so; the entry detail has it whole). */
  text: z.string(),
  cut: z.boolean(),
  markers: z.array(z.enum(MARKERS)),
  /** Every raw entry behind this message: its versions, its tool calls and their results. */
  entryIds: z.array(entryId),
  toolCalls: z.array(z.object({ entryId, name: z.string(), summary: z.string(), resultStatus: z.nullable(z.string()), resultEntryId: z.nullable(entryId) })),
  /**
   * Where the shown version comes from when not from this session's own line: merged from a fork
   * (`meta.mergedFrom`), or read through from the parent of a fork, up to its fork point.
   */
  origin: z.optional(z.object({ via: z.enum(['merge', 'parent']), sessionId: z.string(), entryId })),
  /** Where "Fork from here" forks: the message's last entry, or the end of the turn it is part of (a fork never cuts a turn). */
  forkAt: z.optional(entryId),
  /**
   * On the message that ends a turn which changed files (its last message before the turn's
   * `turn_end` checkpoint): what the turn changed. "Restore Files to Here" restores at
   * `fileChanges.entryId` on such an item, at `entryId` on any other.
   */
  fileChanges: z.optional(turnFileChanges),
});
export type TranscriptItem = z.infer<typeof transcriptItem>;

export const AUDIT_FACT_KINDS = ['path', 'command', 'error', 'request', 'tool'] as const;
const factTotal = z.object({ facts: z.number(), inSummary: z.number() });

/** A fact of a compaction's range its summary does not mention, with the entries it occurs at (sorted). */
export const missingFact = z.object({ kind: z.enum(AUDIT_FACT_KINDS), value: z.string(), entryIds: z.array(entryId) });
export type MissingFact = z.infer<typeof missingFact>;

/**
 * What a compaction's summary kept of the range it replaced (src/tape/audit/compactionAudit.ts): the
 * totals per kind, and the facts it left out in the audit's order, at most MAX_MISSING_FACTS of
 * them (`missingOmitted` counts the rest).
 */
export const compactionAuditSummary = z.object({
  range: z.object({ from: z.nullable(entryId), to: z.nullable(entryId) }),
  totals: z.object({ path: factTotal, command: factTotal, error: factTotal, request: factTotal, tool: factTotal }),
  missing: z.array(missingFact),
  missingOmitted: z.number(),
});
export type CompactionAuditSummary = z.infer<typeof compactionAuditSummary>;
export const MAX_MISSING_FACTS = 200;

/**
 * What was appended to amend a compaction (src/tape/anchorFold.ts): its pins, the summary edit in
 * force, the undo that took it out of force. The facts and entries the pins name are listed so
 * the page marks them pinned instead of offering to pin them again.
 */
export const anchorAmendments = z.object({
  pins: z.array(entryId),
  pinnedFacts: z.array(z.object({ kind: z.string(), value: z.string() })),
  pinnedEntryIds: z.array(entryId),
  summaryEntryId: z.nullable(entryId),
  undoneBy: z.nullable(entryId),
});
export type AnchorAmendmentsInfo = z.infer<typeof anchorAmendments>;

export const anchorItem = z.object({
  entryId,
  name: z.string(),
  createdAt: z.number(),
  inForce: z.boolean(),
  /** The anchor's state as JSON text. */
  state: z.string(),
  /** What a request starting from this anchor reads first (the checkpoint message, with an edited summary), or null. */
  checkpoint: z.nullable(z.string()),
  /** Only compaction anchors have an audit. */
  audit: z.nullable(compactionAuditSummary),
  /** Null until something amended the anchor. */
  amendments: z.nullable(anchorAmendments),
  /**
   * Set on the one compaction amendments apply to now (the last reconstruction anchor not undone,
   * when it is a compaction): `summary` is the summary in force, what "Edit Summary…" starts from.
   * Whether this window may write is the page's `readOnly`.
   */
  amendable: z.nullable(z.object({ summary: z.string() })),
});
export type AnchorItem = z.infer<typeof anchorItem>;

export const requestItem = z.object({
  /**
   * Where the row comes from: a `view/assembled` manifest (this agent's requests, comparable and
   * re-runnable), or, for a request no manifest records (another agent's, ingested), its
   * `provider/attempt` entries alone.
   */
  source: z.enum(['manifest', 'attempt']),
  /** The `view/assembled` entry, or the request's first `provider/attempt`. */
  entryId,
  turnId: z.nullable(z.string()),
  requestSeq: z.nullable(z.number()),
  model: z.string(),
  /** When the request was assembled, or when its first attempt was recorded. */
  assembledAt: z.number(),
  /** The manifest's figures: null for an attempt row. */
  estimatedPrompt: z.nullable(z.number()),
  included: z.nullable(z.number()),
  excluded: z.nullable(z.number()),
  anchorEntryId: z.nullable(entryId),
  /** From the request's `provider/attempt` entries (0 when none was recorded). */
  attempts: z.number(),
  durationMs: z.nullable(z.number()),
  inputTokens: z.nullable(z.number()),
  outputTokens: z.nullable(z.number()),
  cachedTokens: z.nullable(z.number()),
  /** Tokens written to the provider's cache (Anthropic-style usage reports them apart from the input). */
  cacheCreationTokens: z.nullable(z.number()),
  /** The whole prompt as the provider counted it (requests.ts promptTokensOf), else the estimate; null when neither is known. */
  promptTokens: z.nullable(z.number()),
  /** The share of the prompt read from the provider's cache, 0 to 1; null without the figures. */
  cacheHitShare: z.nullable(z.number().check(z.gte(0), z.lte(1))),
});
export type RequestItem = z.infer<typeof requestItem>;

const diffItem = z.object({ entryId: z.nullable(entryId), role: z.string(), reason: z.string(), tokens: z.number() });
const change = <T extends z.core.SomeType>(t: T) => z.nullable(z.object({ from: t, to: t }));
const delta = z.object({ from: z.number(), to: z.number(), delta: z.number() });

/** `diffManifests` of two requests, as the webview shows it. */
export const requestDiff = z.object({
  a: entryId,
  b: entryId,
  added: z.array(diffItem),
  removed: z.array(z.extend(diffItem, { excludedAs: z.nullable(z.string()) })),
  reasonChanges: z.array(z.object({ list: z.string(), entryId: z.nullable(entryId), from: z.string(), to: z.string() })),
  anchor: change(z.nullable(entryId)),
  policy: change(z.string()),
  model: change(z.string()),
  promptChanged: z.boolean(),
  toolsChanged: z.boolean(),
  tokens: z.object({ estimatedPrompt: delta, included: delta }),
  unchangedPrefix: z.object({ items: z.number(), tokens: z.number() }),
});
export type RequestDiff = z.infer<typeof requestDiff>;

export const projectionsView = z.object({
  title: z.nullable(z.string()),
  todos: z.array(z.object({ content: z.string(), status: z.string() })),
  toolStats: z.array(z.object({ name: z.string(), calls: z.number(), ok: z.number(), error: z.number(), pending: z.number() })),
  tokenUsage: z.object({ attempts: z.number(), inputTokens: z.number(), outputTokens: z.number(), cachedTokens: z.number() }),
  contextPressure: z.object({
    estimatedTokens: z.number(),
    contextWindow: z.number(),
    ratio: z.number(),
    /** Where the window comes from (src/inspector/projectionsView.ts contextWindowOf). */
    windowSource: z.enum(['manifest', 'model', 'assumed']),
    model: z.nullable(z.string()),
  }),
});
export type ProjectionsView = z.infer<typeof projectionsView>;

const RELATIONS = ['root', 'fork', 'subagent'] as const;
const CHILD_STATES = ['open', 'merged', 'discarded', 'linked'] as const;

/** A session of the lineage, root first: `at` is where it branched off the one before it (its fork point), when known. */
export const lineageStep = z.object({ sessionId: z.string(), title: z.nullable(z.string()), relation: z.enum(RELATIONS), at: z.nullable(entryId) });
/** A direct fork or subagent of the session, with its state and its receipt in words. */
export const childItem = z.object({
  sessionId: z.string(),
  /** A subagent's is its task's (src/inspector/subagentTasks.ts), a fork's its own. */
  title: z.nullable(z.string()),
  /** What a subagent was asked to do, in one line of at most 600 characters; null for a fork or when unknown. */
  task: z.nullable(z.string()),
  relation: z.enum(['fork', 'subagent']),
  state: z.enum(CHILD_STATES),
  /** The receipt (merge, discard, link) in words; empty while the fork is open. */
  receipt: z.string(),
  receiptEntryId: z.nullable(entryId),
});
/** A fork/start, subagent/start, fork/merge, fork/discard or subagent/linked entry of the session, in words. */
export const receiptItem = z.object({ entryId, name: z.string(), createdAt: z.number(), summary: z.string(), aboutSessionId: z.nullable(z.string()) });
export type ReceiptItem = z.infer<typeof receiptItem>;
export const lineageView = z.object({ ancestors: z.array(lineageStep), children: z.array(childItem), receipts: z.array(receiptItem) });
export type LineageView = z.infer<typeof lineageView>;

const tokenCounts = z.object({ input: z.number(), output: z.number(), cached: z.number() });
const EVALUATION_STATUSES = ['agree', 'diverged', 'failed'] as const;

/** One evaluation of the session (an `eval/start` session linked to it); `complete` is false while it runs (or if it died), its summary then counted from the requests judged. */
export const evaluationListItem = z.object({
  evalSessionId: z.string(),
  evalId: z.string(),
  /** `vendor/id` of the model it was evaluated against. */
  model: z.string(),
  startedAt: z.number(),
  complete: z.boolean(),
  summary: z.object({ requests: z.number(), agree: z.number(), diverged: z.number(), failed: z.number(), notEvaluated: z.number() }),
});
export type EvaluationListItem = z.infer<typeof evaluationListItem>;

/** One request of an evaluation: how the re-run compared with the recording. */
export const evaluationRow = z.object({
  entryId,
  turnId: z.string(),
  requestSeq: z.number(),
  status: z.enum(EVALUATION_STATUSES),
  /** Why it is not `agree`, in words. */
  reason: z.nullable(z.string()),
  textSimilarity: z.nullable(z.number()),
  recordedTokens: z.nullable(tokenCounts),
  rerunTokens: z.nullable(tokenCounts),
  recordedLatencyMs: z.nullable(z.number()),
  rerunLatencyMs: z.nullable(z.number()),
});
export type EvaluationRow = z.infer<typeof evaluationRow>;

/** One side of a side-by-side: an answer's finish, text, tool calls (one line each: name and arguments), tokens and latency. */
export const responseSide = z.object({
  finish: z.nullable(z.string()),
  text: z.string(),
  toolCalls: z.array(z.string()),
  tokens: z.nullable(tokenCounts),
  latencyMs: z.nullable(z.number()),
});
export type ResponseSide = z.infer<typeof responseSide>;

export const evaluationReport = z.object({
  evalSessionId: z.string(),
  evalId: z.string(),
  model: z.string(),
  startedAt: z.number(),
  /** The variation applied to every request, as JSON text (`{}` for none). */
  variation: z.string(),
  rows: z.array(evaluationRow),
  complete: z.boolean(),
  summary: z.object({
    requests: z.number(),
    agree: z.number(),
    diverged: z.number(),
    failed: z.number(),
    notEvaluated: z.number(),
    /** Re-run minus recorded, over the requests with counts on both sides. */
    tokenDelta: tokenCounts,
    latencyDeltaMs: z.number(),
    /** Why it ended early, in words; null when it ran every request. */
    stopped: z.nullable(z.string()),
  }),
  /** The first request that did not agree, recorded and re-run side by side (the re-run is null when it failed). */
  firstDivergence: z.nullable(
    z.object({ entryId, status: z.enum(EVALUATION_STATUSES), reason: z.string(), recorded: responseSide, rerun: z.nullable(responseSide) }),
  ),
});
export type EvaluationReport = z.infer<typeof evaluationReport>;

export const sessionItem = z.object({ sessionId: z.string(), title: z.nullable(z.string()), entryCount: z.number(), lastCreatedAt: z.number() });

/** Requests and tokens (src/tape/usage/usageFigures.ts): none negative (a figure a tape gives as a fraction is kept as it is). */
const count = z.number().check(z.nonnegative());
const usageFigures = z.object({ requests: count, inputTokens: count, outputTokens: count, cachedTokens: count, cacheCreationTokens: count });

/**
 * The first entry of the session from which a workspace checkpoint stands for its files, absent
 * while it has none: "Restore Files to Here" is offered on the items that restore at or after it.
 */
const checkpointsFrom = z.optional(entryId);

/** Transcript items from `offset` of `total`, in conversation order. */
const transcriptPage = z.object({
  sessionId: z.string(),
  headEntryId: z.number(),
  offset: z.number(),
  total: z.number(),
  items: z.array(transcriptItem),
  checkpointsFrom,
});
export type TranscriptPage = z.infer<typeof transcriptPage>;

const noParams = z.object({});

/**
 * An amendment the page asks for, as the session handle takes it (src/tape/audit/compactionAmendment.ts
 * checks it in full: bounds, entries before the compaction, not already in the context).
 */
export const compactionAmendment = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('pin'),
    entryIds: z.optional(z.array(entryId)),
    facts: z.optional(z.array(z.object({ kind: z.enum(AUDIT_FACT_KINDS), value: z.string() }))),
  }),
  z.object({ kind: z.literal('edit'), summary: z.string() }),
  z.object({ kind: z.literal('undo') }),
]);
export type CompactionAmendment = z.infer<typeof compactionAmendment>;

/**
 * What the webview asks, and what each question is answered with. The views sent whole (anchors,
 * requests, projections, lineage) name the session they are of, so a page that switched sessions
 * meanwhile drops them.
 */
export const inspectorRequests = {
  /** Earlier transcript items (the transcript opens on its last page, pushed with `source`). */
  transcript: { params: z.object({ offset: z.number(), limit: z.number() }), reply: transcriptPage },
  /** A page of entry rows of the selected session that pass the filter; `total` of them pass. */
  entries: {
    params: z.object({ offset: z.number(), limit: z.number(), filter: entryListFilter }),
    reply: z.object({ offset: z.number(), total: z.number(), rows: z.array(entryRow) }),
  },
  /** One entry exactly as stored (`entry` is its JSON text). */
  entry: { params: z.object({ entryId }), reply: z.object({ entryId, entry: z.string() }) },
  diff: { params: z.object({ a: entryId, b: entryId }), reply: requestDiff },
  anchors: { params: noParams, reply: z.object({ sessionId: z.string(), items: z.array(anchorItem) }) },
  requests: { params: noParams, reply: z.object({ sessionId: z.string(), items: z.array(requestItem) }) },
  projections: { params: noParams, reply: z.object({ sessionId: z.string(), view: projectionsView }) },
  lineage: { params: noParams, reply: z.object({ sessionId: z.string(), view: lineageView }) },
  /** The evaluations of the session, newest first (an evaluation session lists itself). */
  evaluations: { params: noParams, reply: z.object({ sessionId: z.string(), items: z.array(evaluationListItem) }) },
  /**
   * Appends one amendment (pin, edited summary, undo) of the compaction `anchorEntryId`, which must
   * still be the one in force. `entryId` is the appended entry, null when the user declined (an
   * undo asks first); `message` says what was done and, for an undo, what the next context holds.
   * A refusal is an error reply, and then nothing was appended.
   */
  amendCompaction: {
    params: z.object({ anchorEntryId: entryId, amendment: compactionAmendment }),
    reply: z.object({ sessionId: z.string(), entryId: z.nullable(entryId), message: z.string() }),
  },
  /** One evaluation's report. */
  evaluation: { params: z.object({ evalSessionId: z.string() }), reply: z.object({ sessionId: z.string(), report: evaluationReport }) },
  /**
   * A link in tape text was pressed: the host opens it with VS Code (which asks first for a site
   * not trusted), only for the schemes of `openableLink.ts`; any other is an error reply. `opened`
   * is false when it was not opened (the user declined). Sent with no reply timeout.
   */
  openLink: { params: z.object({ url: z.string().check(z.maxLength(MAX_LINK_LENGTH)) }), reply: z.object({ opened: z.boolean() }) },
} satisfies RequestMap;
export type InspectorRequests = typeof inspectorRequests;

export const hostToInspector = z.discriminatedUnion('type', [
  /** What is open: sent first, and again when the session or the sessions change. */
  z.object({
    type: z.literal('source'),
    label: z.string(),
    readOnly: z.boolean(),
    sessions: z.array(sessionItem),
    sessionId: z.nullable(z.string()),
    headEntryId: z.number(),
  }),
  /**
   * The shown session's model requests and tokens (src/tape/usage/usageRollup.ts): its own, and rolled up
   * over the `descendants` subagents and forks below it. After every `source` that selects a
   * session, and again when they change (the session or one below it made a request).
   */
  z.object({ type: z.literal('usage'), sessionId: z.string(), own: usageFigures, rolledUp: usageFigures, descendants: count }),
  /** The tape could not be opened or read: the inspector shows this instead of its views. */
  z.object({ type: z.literal('failed'), message: z.string() }),
  /** The transcript's last page, after `ready` or `selectSession`: what the page held before is replaced. */
  z.extend(transcriptPage, { type: z.literal('transcript') }),
  /**
   * The tape grew (batched: at most one per 100 ms): the new entries' rows and the transcript items
   * that are new or changed. The webview merges them; it asks again only for what it shows.
   */
  z.object({
    type: z.literal('appended'),
    sessionId: z.string(),
    headEntryId: z.number(),
    rows: z.array(entryRow),
    transcript: z.array(transcriptItem),
    checkpointsFrom,
  }),
  /** Select an entry ("show in inspector"): the Entries view opens on it and takes the focus. */
  z.object({ type: z.literal('reveal'), entryId }),
  /**
   * A replay's cursor moved to an entry of the shown session (null: the replay ended). The entry is
   * selected and scrolled to in the Entries view, and the transcript item holding it is marked,
   * without moving the focus or the tab.
   */
  z.object({ type: z.literal('cursor'), sessionId: z.string(), entryId: z.nullable(entryId) }),
  /** An evaluation of the shown session finished: the Evaluations view opens on its report. */
  z.object({ type: z.literal('showEvaluation'), sessionId: z.string(), evalSessionId: z.string() }),
  /** "Review" on a compaction (the chat's notice): the Anchors view opens with that anchor scrolled to and focused. */
  z.object({ type: z.literal('showAnchor'), sessionId: z.string(), entryId }),
  /** Something failed outside any request (a command, a session that is not on the tape). */
  z.object({ type: z.literal('error'), message: z.string() }),
  /** The answer to one of the page's requests. */
  replyMessage,
]);
export type HostToInspector = z.infer<typeof hostToInspector>;
/** What the host says unasked: everything but replies. */
export type InspectorPush = Exclude<HostToInspector, { type: 'reply' }>;

export const inspectorToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('selectSession'), sessionId: z.string() }),
  z.object({ type: z.literal('copy'), text: z.string() }),
  /** Host commands the inspector offers (export, compact, fork from an entry, ...). */
  z.object({ type: z.literal('command'), command: z.string(), args: z.optional(z.array(z.union([z.string(), z.number()]))) }),
  /** One of `inspectorRequests`; its params are checked against the method's schema by the dispatcher. */
  requestMessage,
]);
export type InspectorToHost = z.infer<typeof inspectorToHost>;
/** What the page says without waiting for an answer. */
export type InspectorNotice = Exclude<InspectorToHost, { type: 'request' }>;
