import * as z from 'zod';

/**
 * opencode's records, read from either of its layouts into one shape. opencode (packages/opencode,
 * src/session/message-v2.ts) stores a session's messages (`MessageV2.Info`, without `id` and
 * `sessionID`) and each message's parts (`MessageV2.Part`, without `id`, `messageID` and
 * `sessionID`) as JSON: in the database's `message.data` and `part.data` columns since 1.2, in
 * `storage/message/<session>/<message>.json` and `storage/part/<message>/<part>.json` files with
 * those ids inside before. Validated loosely: fields this code does not read come and go between
 * versions.
 */

export interface OcProject {
  id: string;
  /** The repository (or folder) the project is; `/` for opencode's `global` project of folders outside git. */
  worktree?: string;
}

export interface OcSession {
  id: string;
  projectId?: string;
  /** The session that started this one (a `task` tool's subagent). */
  parentId?: string;
  /** The folder opencode ran in. */
  directory?: string;
  title?: string;
  created?: number;
  updated?: number;
}

export interface OcMessage {
  id: string;
  sessionId: string;
  /** `MessageV2.Info` as stored. */
  data: unknown;
}

export interface OcPart {
  id: string;
  messageId: string;
  /** `MessageV2.Part` as stored. */
  data: unknown;
}

/** One source's records; what could not be read at all is counted in `skipped` by what it was. */
export interface OpencodeData {
  projects: OcProject[];
  sessions: OcSession[];
  messages: OcMessage[];
  parts: OcPart[];
  skipped: Record<string, number>;
}

const count = z.number().nonnegative().optional();
export const tokensSchema = z.looseObject({
  input: count,
  output: count,
  reasoning: count,
  cache: z.looseObject({ read: count, write: count }).optional(),
});
export type OcTokens = z.infer<typeof tokensSchema>;

const time = z.looseObject({ created: z.number().optional(), completed: z.number().optional() });

export const userInfo = z.looseObject({
  role: z.literal('user'),
  time: time.optional(),
  agent: z.string().optional(),
  model: z.looseObject({ providerID: z.string().optional(), modelID: z.string().optional() }).optional(),
});

export const assistantInfo = z.looseObject({
  role: z.literal('assistant'),
  time: time.optional(),
  error: z.looseObject({ name: z.string().optional() }).optional(),
  parentID: z.string().optional(),
  modelID: z.string().optional(),
  providerID: z.string().optional(),
  agent: z.string().optional(),
  mode: z.string().optional(),
  path: z.looseObject({ cwd: z.string().optional(), root: z.string().optional() }).optional(),
  /** The compaction agent's summary of the conversation before its user message. */
  summary: z.boolean().optional(),
  cost: z.number().optional(),
  tokens: tokensSchema.optional(),
  finish: z.string().optional(),
});

export const messageInfo = z.discriminatedUnion('role', [userInfo, assistantInfo]);
export type OcUserInfo = z.infer<typeof userInfo>;
export type OcAssistantInfo = z.infer<typeof assistantInfo>;

const span = z.looseObject({ start: z.number().optional(), end: z.number().optional() });

export const textPart = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  /** Written by opencode, not typed (a file's contents, "Continue if you have next steps"). */
  synthetic: z.boolean().optional(),
  /** Kept, but not sent to the model. */
  ignored: z.boolean().optional(),
  time: span.optional(),
});
export const reasoningPart = z.looseObject({ type: z.literal('reasoning'), text: z.string(), time: span.optional() });
export const toolPart = z.looseObject({
  type: z.literal('tool'),
  callID: z.string(),
  tool: z.string().min(1),
  state: z.looseObject({
    status: z.enum(['pending', 'running', 'completed', 'error']),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
    error: z.unknown().optional(),
    title: z.string().optional(),
    metadata: z.looseObject({ sessionId: z.string().optional() }).optional(),
    time: span.optional(),
  }),
});
export const stepFinishPart = z.looseObject({
  type: z.literal('step-finish'),
  reason: z.string().optional(),
  cost: z.number().optional(),
  tokens: tokensSchema,
});
export const filePart = z.looseObject({
  type: z.literal('file'),
  mime: z.string(),
  filename: z.string().optional(),
  url: z.string(),
  source: z.looseObject({ path: z.string().optional() }).optional(),
});
export const patchPart = z.looseObject({ type: z.literal('patch'), hash: z.string(), files: z.array(z.string()) });
export const agentPart = z.looseObject({ type: z.literal('agent'), name: z.string() });
export const subtaskPart = z.looseObject({
  type: z.literal('subtask'),
  prompt: z.string(),
  description: z.string(),
  agent: z.string(),
  command: z.string().optional(),
});
export const retryPart = z.looseObject({ type: z.literal('retry'), attempt: z.number(), error: z.unknown().optional(), time: time.optional() });
export const compactionPart = z.looseObject({
  type: z.literal('compaction'),
  auto: z.boolean().optional(),
  /** Newer versions keep the messages from this one on after the summary. */
  tail_start_id: z.string().optional(),
});

/** A part's type as stored, or null when it has none. */
export const partTypeOf = (data: unknown): string | null => {
  const t = (data as { type?: unknown } | null)?.type;
  return typeof t === 'string' && t !== '' ? t : null;
};
