import * as path from 'path';
import { fileURLToPath } from 'url';
import * as z from 'zod';

/**
 * VS Code's serialised chat session (ISerializableChatData in
 * src/vs/workbench/contrib/chat/common/model/chatModel.ts, versions 1 to 3, and the same state
 * as the mutation log builds it), as far as the tape reads it. Only what an entry needs is
 * validated, and leniently: a field of an unexpected shape is as good as absent, so one odd
 * field never costs a request; a request without its id is counted and left out.
 */

// SQLite keeps text as UTF-8 and provenance keys URI-encode their parts: a lone surrogate can be neither.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** An id from the file that keys entries and names tools. */
export const sourceId = z
  .string()
  .min(1)
  .max(1024)
  .refine((s) => !LONE_SURROGATE.test(s));

const opt = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
const count = z.number().finite().nonnegative();
const time = z.number().finite().positive();

/** VS Code's IMarkdownString (`{value, isTrusted?, …}`): how markdown parts and many messages are stored. */
export const markdownString = z.looseObject({ value: z.string() });

/** Text that VS Code keeps as a string or as an IMarkdownString. */
export function textOfMessage(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const md = markdownString.safeParse(value);
  return md.success ? md.data.value : undefined;
}

const uriComponents = z.looseObject({
  scheme: opt(z.string()),
  authority: opt(z.string()),
  path: opt(z.string()),
  fsPath: opt(z.string()),
});

/**
 * Schemes whose path is a file's path where the extension host runs: a local file, and the
 * workspace's files in a remote or server window (`vscode-remote://<host>/<path>`).
 */
const FILE_SCHEMES = new Set(['file', 'vscode-remote']);

/** A URI as VS Code serialises it (UriComponents), as a person reads it: a file's path, any other URI whole. */
export function uriText(value: unknown): string | undefined {
  const u = uriComponents.safeParse(value);
  if (!u.success) return typeof value === 'string' ? value : undefined;
  const { scheme, authority, path: p, fsPath } = u.data;
  if (scheme === undefined || FILE_SCHEMES.has(scheme)) return fsPath ?? p;
  return `${scheme}://${authority ?? ''}${p ?? ''}`;
}

/** The folder a `file:` URI string names (VS Code's `workingDirectory`, a workspace's `folder`). */
export function folderOfUri(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri.startsWith('file:')) return undefined;
  try {
    return path.resolve(fileURLToPath(uri));
  } catch {
    return undefined;
  }
}

const modelTotal = z.looseObject({ model: z.string().min(1), inputTokens: count, outputTokens: count, cachedTokens: opt(count) });

/** ResponseModelState (chatService.ts): a request whose response is Pending or NeedsInput is still running. */
export const RESPONSE_PENDING = 0;
export const RESPONSE_CANCELLED = 2;
export const RESPONSE_FAILED = 3;
export const RESPONSE_NEEDS_INPUT = 4;

export const chatRequest = z.looseObject({
  requestId: sourceId,
  /** The parsed request (`{text, parts}`); a string in the oldest files. */
  message: opt(z.union([z.string(), z.looseObject({ text: z.string() })])),
  timestamp: opt(time),
  modelId: opt(z.string().min(1)),
  agent: opt(z.looseObject({ id: opt(z.string()), name: opt(z.string()), fullName: opt(z.string()) })),
  /** Response parts; one markdown string in the oldest files. */
  response: opt(z.union([z.string(), z.array(z.unknown())])),
  responseId: opt(sourceId),
  responseTimestamp: opt(time),
  result: opt(
    z.looseObject({
      errorDetails: opt(z.looseObject({ message: z.string() })),
      timings: opt(z.looseObject({ firstProgress: opt(count), totalElapsed: opt(count) })),
      metadata: opt(z.looseObject({})),
    }),
  ),
  modelState: opt(z.looseObject({ value: z.number().int(), completedAt: opt(time) })),
  isCanceled: opt(z.boolean()),
  /** An undo (checkpoint restore) hides the request, or its response after an undo stop, until the next request removes it. */
  shouldBeRemovedOnSend: opt(z.looseObject({ afterUndoStop: opt(z.string()) })),
  isHidden: opt(z.boolean()),
  variableData: opt(z.looseObject({ variables: z.array(z.unknown()) })),
  contentReferences: opt(z.array(z.unknown())),
  codeCitations: opt(z.array(z.unknown())),
  usedContext: opt(z.looseObject({})),
  editedFileEvents: opt(z.array(z.unknown())),
  promptTokens: opt(count),
  completionTokens: opt(count),
  /** The response's IChatUsage (chatService.ts) as the mutation log keeps it, where the flat file has the figures above. */
  usage: opt(z.looseObject({ promptTokens: opt(count), completionTokens: opt(count), copilotCredits: opt(count), actualModelId: opt(z.string().min(1)) })),
  modelTotals: opt(z.array(modelTotal)),
  copilotCredits: opt(count),
  elapsedMs: opt(count),
});
export type ChatRequest = z.infer<typeof chatRequest>;

export const chatSession = z.looseObject({
  version: opt(z.number()),
  sessionId: opt(sourceId),
  creationDate: opt(time),
  /** Version 3's title; version 2 kept it as `computedTitle`. */
  customTitle: opt(z.string()),
  computedTitle: opt(z.string()),
  responderUsername: opt(z.string()),
  initialLocation: opt(z.string()),
  /** The session's folder, in the Agents window only (a URI string). */
  workingDirectory: opt(z.string()),
  requests: z.array(z.unknown()),
  pendingRequests: opt(z.array(z.unknown())),
});
export type ChatSession = z.infer<typeof chatSession>;

/** Whether a value is a chat session's state: an object with its requests and its id or version. */
export function isChatSessionState(value: unknown): boolean {
  const s = chatSession.safeParse(value);
  return s.success && (s.data.sessionId !== undefined || s.data.version !== undefined);
}
