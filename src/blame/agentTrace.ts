import { createHash } from 'crypto';
import { pathToFileURL } from 'url';
import * as z from 'zod';
import type { BlameRange, LineOrigin } from './tapeBlame';

/**
 * Agent Trace records (https://github.com/cursor/agent-trace, RFC 0.1.0): which conversation of
 * which model wrote which line ranges of which files. The schema below is the RFC's, as strict as
 * its JSON Schema; every record written is checked against it.
 */
export const AGENT_TRACE_VERSION = '0.1.0';

const contributor = z.object({ type: z.enum(['human', 'ai', 'mixed', 'unknown']), model_id: z.string().max(250).optional() });
const uri = z.string().refine((s) => URL.canParse(s), 'a URI');
const range = z.object({
  start_line: z.number().int().min(1),
  end_line: z.number().int().min(1),
  content_hash: z.string().optional(),
  contributor: contributor.optional(),
});
export const agentTraceRecord = z.object({
  version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+$/),
  id: z.uuid(),
  timestamp: z.iso.datetime({ offset: true }),
  vcs: z.object({ type: z.enum(['git', 'jj', 'hg', 'svn']), revision: z.string() }).optional(),
  tool: z.object({ name: z.string().optional(), version: z.string().optional() }).optional(),
  files: z.array(
    z.object({
      path: z.string(),
      conversations: z.array(
        z.object({
          url: uri.optional(),
          contributor: contributor.optional(),
          ranges: z.array(range),
          related: z.array(z.object({ type: z.string(), url: uri })).optional(),
        }),
      ),
    }),
  ),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type AgentTraceRecord = z.infer<typeof agentTraceRecord>;

/** A workspace file as it is now with its blame. */
export interface BlamedFile {
  /** Workspace-relative, `/`-separated. */
  path: string;
  /** Its lines (as `fileLines` reads them), for the ranges' hashes. */
  lines: readonly string[];
  ranges: readonly BlameRange[];
}

export interface TraceSource {
  /** The tape's absolute path: the conversations' addresses name it. */
  tapeFile: string;
  /** The workspace's git commit and the workspace's folder within the repository (`sub/dir/` or ''), when it is one. */
  git: { revision: string; prefix: string } | null;
  files: readonly BlamedFile[];
}

/** `agent-tape:<tape path as a file URL's path>#<session>[/<entry>]`: where on which tape to look. */
export function tapeUrl(tapeFile: string, sessionId: string, entryId?: number): string {
  return `agent-tape:${pathToFileURL(tapeFile).pathname}#${encodeURIComponent(sessionId)}${entryId === undefined ? '' : `/${entryId}`}`;
}

/** `sha256:<hex>` of a range's lines joined by line feeds (no final one): the text as the file holds it, line breaks aside. */
export const contentHashOf = (lines: readonly string[]): string => `sha256:${createHash('sha256').update(lines.join('\n'), 'utf8').digest('hex')}`;

/** A UUID (version 8, RFC 9562's custom kind) from a hash of `parts`: the same parts give the same id on every run. */
function stableUuid(...parts: string[]): string {
  const h = createHash('sha256').update(parts.join('\0'), 'utf8').digest();
  h[6] = (h[6] & 0x0f) | 0x80;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * One record per session that wrote lines of the files as they are now: a session is what the RFC
 * calls a conversation's container, and one record per session keeps a re-run's output stable
 * (its id is derived from the tape and the session; its timestamp is the session's last edit that
 * still shows). Within a file, each edit entry is a conversation whose `url` names that entry on
 * the tape, with the session and the request that produced it as `related`; its contributor is the
 * model the tape records for that edit. `sessions`: only these (all when null).
 */
export function agentTraceRecords(source: TraceSource, sessions: ReadonlySet<string> | null): AgentTraceRecord[] {
  const bySession = new Map<
    string,
    {
      files: Map<string, Map<string, { origin: LineOrigin; ranges: AgentTraceRecord['files'][number]['conversations'][number]['ranges'] }>>;
      last: string;
      origin: LineOrigin;
    }
  >();
  for (const file of source.files) {
    for (const { startLine, endLine, origin } of file.ranges) {
      if (origin === null || (sessions !== null && !sessions.has(origin.sessionId))) continue;
      let session = bySession.get(origin.sessionId);
      if (session === undefined) bySession.set(origin.sessionId, (session = { files: new Map(), last: origin.at, origin }));
      if (origin.at > session.last) session.last = origin.at;
      let conversations = session.files.get(file.path);
      if (conversations === undefined) session.files.set(file.path, (conversations = new Map()));
      const key = String(origin.entryId);
      let conversation = conversations.get(key);
      if (conversation === undefined) conversations.set(key, (conversation = { origin, ranges: [] }));
      conversation.ranges.push({ start_line: startLine, end_line: endLine, content_hash: contentHashOf(file.lines.slice(startLine - 1, endLine)) });
    }
  }
  const records: AgentTraceRecord[] = [];
  for (const [sessionId, session] of bySession) {
    const record: AgentTraceRecord = {
      version: AGENT_TRACE_VERSION,
      id: stableUuid(source.tapeFile, sessionId),
      timestamp: session.last,
      ...(source.git === null ? {} : { vcs: { type: 'git' as const, revision: source.git.revision } }),
      tool: { name: 'agent-tape' },
      files: [...session.files].map(([path, conversations]) => ({
        path: `${source.git?.prefix ?? ''}${path}`,
        conversations: [...conversations.values()].map(({ origin, ranges }) => ({
          url: tapeUrl(source.tapeFile, sessionId, origin.entryId),
          contributor: { type: 'ai' as const, ...(origin.model !== null && origin.model.length <= 250 ? { model_id: origin.model } : {}) },
          ranges,
          related: [
            { type: 'session', url: tapeUrl(source.tapeFile, sessionId) },
            ...(origin.requestEntryId === null ? [] : [{ type: 'request', url: tapeUrl(source.tapeFile, sessionId, origin.requestEntryId) }]),
          ],
        })),
      })),
      metadata: { 'dev.agent-tape': { tape: source.tapeFile, sessionId, agent: session.origin.agent, title: session.origin.sessionTitle } },
    };
    records.push(agentTraceRecord.parse(record));
  }
  return records;
}
