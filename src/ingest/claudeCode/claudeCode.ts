import { ATTEMPT_EVENT } from '../../tape/entryNames';
import * as path from 'path';
import * as z from 'zod';
import { compactionAnchorEntry } from '../../tape/compactionAnchor';
import type { JsonObject, NewEntry } from '../../tape/entry';
import {
  countSkip,
  createdAtOf,
  eventEntry,
  otherSession,
  sessionMetaEntry,
  sourceKey,
  subagentLinkEntry,
  uuidOfName,
  type Mapped,
  type MappedSession,
  type Transcript,
  type TranscriptFormat,
  type TranscriptMapper,
} from '../format';
import { listDir } from '../sourceFiles';
import { ANTHROPIC_BASIS, tapeUsage } from '../tapeUsage';
import { COMPANION_DEPTH, companionDirOf, ownerTranscriptOf } from '../transcriptFiles';
import type { SourceLine } from '../transcriptLines';
import { promptTitle, WRITTEN_BY_CLAUDE_CODE } from './firstPrompt';
import { persistedOutputOf } from './persistedOutput';
import { spawningCallOf } from './subagentMeta';

/**
 * Claude Code transcripts: `~/.claude/projects/<encoded path>/<session>.jsonl`, subagents in
 * `<session>/subagents/agent-<id>.jsonl` (a workflow's in `subagents/workflows/<run>/`), large tool
 * outputs in `<session>/tool-results/`. Records are validated loosely: fields this code does not
 * read may come and go between Claude Code versions.
 */

const THINKING_EVENT = 'claude-code/thinking';
const META_EVENT = 'claude-code/meta';

const block = z.looseObject({ type: z.string() });
const textBlock = z.looseObject({ type: z.literal('text'), text: z.string() });
// Server tools (the advisor, web search) are called and answered inside the answer itself.
const toolUseBlock = z.looseObject({
  type: z.enum(['tool_use', 'server_tool_use', 'mcp_tool_use']),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown().optional(),
});
const serverResultBlock = z.looseObject({ type: z.string().regex(/._tool_result$/), tool_use_id: z.string().min(1), content: z.unknown().optional() });
const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.unknown().optional(),
  is_error: z.boolean().optional(),
});
const thinkingBlock = z.looseObject({ type: z.enum(['thinking', 'redacted_thinking']), thinking: z.string().optional() });
const count = z.number().nonnegative().optional();
const usage = z.looseObject({
  input_tokens: count,
  output_tokens: count,
  cache_read_input_tokens: count,
  cache_creation_input_tokens: count,
  // The thinking-token-count beta Claude Code 2.1.3xx asks for: the part of the output that was thinking.
  output_tokens_details: z.looseObject({ thinking_tokens: count }).optional(),
});

const record = z.looseObject({
  type: z.string().min(1),
  uuid: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  subtype: z.string().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  compactMetadata: z
    .looseObject({ trigger: z.string().optional(), preservedSegment: z.looseObject({ headUuid: z.string().optional() }).optional() })
    .optional(),
  parentToolUseID: z.string().optional(),
  data: z.looseObject({ agentId: z.string().optional() }).optional(),
  toolUseResult: z.unknown().optional(),
  message: z
    .looseObject({
      id: z.string().min(1).optional(),
      model: z.string().optional(),
      content: z.union([z.string(), z.array(block)]).optional(),
      usage: usage.optional(),
    })
    .optional(),
});
type Rec = z.infer<typeof record>;
type Line = { lineNo: number; rec: Rec };

/** The records that are the conversation; the others are read only for the fields `envelope` names. */
const CONVERSATION = new Set(['user', 'assistant', 'system', 'summary', 'progress']);
/**
 * What the others are: titles and a pull request a session is linked to (mapped); editor state,
 * recorded API requests (an `api-request-blob`'s `message` is a request's, not a conversation
 * message), costs and attachments (counted by type).
 */
const envelope = z.looseObject({
  type: z.string().min(1),
  uuid: z.string().min(1).optional(),
  sessionId: z.string().min(1).optional(),
  timestamp: z.string().optional(),
  customTitle: z.string().optional(),
  aiTitle: z.string().optional(),
  prUrl: z.string().optional(),
  prNumber: z.number().optional(),
  prRepository: z.string().optional(),
});
const RECORD_TYPES = new Set([
  ...CONVERSATION,
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'api-request',
  'api-request-shape',
  'api-request-blob',
  'api-request-resumed',
  'tools-used',
  'last-prompt',
  'cost-state',
  'custom-title',
  'ai-title',
  'agent-name',
  'mode',
  'permission-mode',
  'pr-link',
  'atis-latch',
]);

/** The agent id a subagent file names: `agent-<id>.jsonl`. */
const agentIdOf = (file: string): string | null => /^agent-(.+)\.jsonl$/.exec(path.basename(file))?.[1] ?? null;

const blocksOf = (rec: Rec): z.infer<typeof block>[] => (Array.isArray(rec.message?.content) ? rec.message.content : []);

const texts = (blocks: readonly unknown[]): string[] =>
  blocks.flatMap((b) => {
    const t = textBlock.safeParse(b);
    return t.success ? [t.data.text] : [];
  });

/** A tool result's content as text when it is text (the common case), else as the source has it. */
function outputOf(content: unknown): unknown {
  if (!Array.isArray(content)) return content ?? '';
  const parts = texts(content);
  return parts.length === content.length ? parts.join('\n') : content;
}

/** An API message's records: one per content block is common, all with the same `message.id`. */
interface Group {
  messageId: string;
  firstLine: number;
  firstTimestamp?: string;
  /** The record whose text is the latest: a message that grows gets a new key, so a new revision. */
  keyUuid: string;
  texts: string[];
  lastUsage?: z.infer<typeof usage>;
  model?: string;
}

/** Which Task tool call started each subagent, as far as `lines` tell: progress records and Task results name both. */
function noteTaskCalls(lines: readonly Line[], out: Map<string, string>): void {
  for (const { rec } of lines) {
    if (rec.type === 'progress' && rec.data?.agentId && rec.parentToolUseID) out.set(rec.data.agentId, rec.parentToolUseID);
    const agentId = (rec.toolUseResult as { agentId?: unknown } | undefined)?.agentId;
    if (rec.type === 'user' && typeof agentId === 'string') {
      const result = blocksOf(rec).find((b) => b.type === 'tool_result') as { tool_use_id?: unknown } | undefined;
      if (typeof result?.tool_use_id === 'string' && !out.has(agentId)) out.set(agentId, result.tool_use_id);
    }
  }
}

/**
 * One file's records as the entries of `sessionId`, fed the lines each read adds. It keeps what
 * later lines refer to: the API messages (a later record can add a text block, so a revision),
 * the tool calls (a result needs its call's message), a compaction boundary waiting for its summary.
 */
class SessionMapper {
  private readonly groups = new Map<string, Group>();
  private readonly calls = new Map<string, { messageId: string; name: string; lineNo: number; timestamp?: string }>();
  /** The time of the last record with one: a link with no spawning call is written at it. */
  private lastTimestamp: string | undefined;
  private boundary: Line | null = null;
  /** Each user and assistant record's message position (`orderSeq`), for a compaction that keeps messages. */
  private readonly orderSeqOf = new Map<string, number>();
  private model = 'unknown';

  private cwd: string | undefined;
  private firstPrompt: string | undefined;
  /** The name the person gave the session (`custom-title`), and the one Claude Code made up (`ai-title`). */
  private customTitle: string | undefined;
  private aiTitle: string | undefined;
  /** The session/meta is written at the first answer (its model), and again when the title changes. */
  private writtenTitle: string | undefined | null = null;

  constructor(
    readonly sessionId: string,
    private readonly source: string,
    /** `<session>/`, where Claude Code keeps the session's large tool outputs. */
    private readonly sessionDir: string,
    private readonly parentSessionId?: string,
  ) {}

  private get title(): string | undefined {
    return this.customTitle ?? this.aiTitle ?? this.firstPrompt;
  }

  private metaEntry(timestamp?: string): NewEntry {
    this.writtenTitle = this.title;
    const meta = {
      agent: 'claude-code' as const,
      model: this.model,
      cwd: this.cwd,
      source: this.source,
      title: this.title,
      parentSessionId: this.parentSessionId,
    };
    return sessionMetaEntry(this.sessionId, meta, timestamp);
  }

  /**
   * `agents` are the subagents to link, each with the Task call that started it when known: the
   * link follows that call, else comes at the end; links are written again every run, since their
   * key names the child's head (ingest.ts freezeLink).
   */
  map(lines: readonly Line[], agents: ReadonlyMap<string, string | undefined>, skipped: Record<string, number>): NewEntry[] {
    const sessionId = this.sessionId;
    const firstNew = lines[0]?.lineNo ?? Infinity;
    // Messages begun by earlier lines that these continue: written again, as a revision if they grew.
    const continued = new Set<Group>();
    for (const { lineNo, rec } of lines) {
      if (rec.type !== 'assistant' || !rec.uuid) continue;
      const id = rec.message?.id ?? rec.uuid;
      let g = this.groups.get(id);
      if (!g) this.groups.set(id, (g = { messageId: id, firstLine: lineNo, firstTimestamp: rec.timestamp, keyUuid: rec.uuid, texts: [] }));
      else if (g.firstLine < firstNew) continued.add(g);
      this.orderSeqOf.set(rec.uuid, g.firstLine);
      const t = texts(blocksOf(rec));
      if (t.length) {
        g.texts.push(...t);
        g.keyUuid = rec.uuid;
      }
      if (rec.message?.usage) g.lastUsage = rec.message.usage;
      g.model = rec.message?.model ?? g.model;
      for (const b of blocksOf(rec)) {
        const u = toolUseBlock.safeParse(b);
        if (u.success) this.calls.set(u.data.id, { messageId: id, name: u.data.name, lineNo, timestamp: rec.timestamp });
      }
    }
    const callToAgent = new Map([...agents].flatMap(([agentId, callId]) => (callId === undefined ? [] : [[callId, agentId] as const])));
    const linked = new Set<string>();
    for (const { rec } of lines) {
      this.lastTimestamp = rec.timestamp ?? this.lastTimestamp;
      this.cwd ??= rec.cwd;
    }
    // A link is written at its spawning call's time (the source's, not the import's).
    const link = (agentId: string, call?: { toolCallId: string; messageId: string }): NewEntry => {
      linked.add(agentId);
      const at = call === undefined ? this.lastTimestamp : this.calls.get(call.toolCallId)?.timestamp;
      return subagentLinkEntry(sessionId, agentId, { childSessionId: `${sessionId}/agent-${agentId}`, agentId, ...call }, at);
    };

    const out: NewEntry[] = [];
    for (const g of continued) out.push(...this.messageEntries(g));
    for (const [toolCallId, agentId] of callToAgent) {
      const call = this.calls.get(toolCallId);
      if (call !== undefined && call.lineNo < firstNew) out.push(link(agentId, { toolCallId, messageId: call.messageId }));
    }
    for (const line of lines) {
      const { lineNo, rec } = line;
      const at = createdAtOf(rec.timestamp);
      const uuid = rec.uuid ?? `line-${lineNo}`;
      if (rec.type === 'assistant') {
        const messageId = rec.message?.id ?? uuid;
        const g = this.groups.get(messageId);
        this.model = g?.model ?? this.model;
        if (g?.firstLine === lineNo) out.push(...this.messageEntries(g));
        // At the first answer, where a whole read and a read as the file grows both put it.
        if (this.writtenTitle === null && this.model !== 'unknown') out.push(this.metaEntry(rec.timestamp));
        blocksOf(rec).forEach((b, i) => {
          const use = toolUseBlock.safeParse(b);
          if (use.success) {
            const { id: toolCallId, name, input } = use.data;
            out.push({
              kind: 'tool_call',
              name,
              provenanceKey: sourceKey(sessionId, 'tool_call', messageId, toolCallId),
              payload: { messageId, toolCallId, name, input: input ?? null },
              ...at,
            });
            const agentId = callToAgent.get(toolCallId);
            if (agentId !== undefined && !linked.has(agentId)) out.push(link(agentId, { toolCallId, messageId }));
          } else if (serverResultBlock.safeParse(b).success) {
            const { tool_use_id: toolCallId, content } = serverResultBlock.parse(b);
            const call = this.calls.get(toolCallId);
            if (call === undefined) countSkip(skipped, 'assistant/server_tool_result_without_call');
            else
              out.push(
                this.resultEntry(call, toolCallId, /_error$/.test(String((content as { type?: unknown } | null)?.type)), content ?? null, rec.timestamp),
              );
          } else if (thinkingBlock.safeParse(b).success) {
            // Claude Code 2.1.3xx asks for thinking without its text: a block that is only a signature says nothing.
            if (b.type === 'thinking' && !thinkingBlock.parse(b).thinking) countSkip(skipped, 'assistant/thinking_empty');
            else out.push(eventEntry(THINKING_EVENT, sourceKey(sessionId, THINKING_EVENT, uuid, i), { messageId, block: b }, rec.timestamp));
          } else if (b.type !== 'text') countSkip(skipped, `assistant/${b.type}`);
        });
      } else if (rec.type === 'user') {
        if (rec.uuid !== undefined) this.orderSeqOf.set(rec.uuid, lineNo);
        if (rec.isCompactSummary) {
          const boundary = this.boundary;
          if (!boundary) countSkip(skipped, 'user/compact_summary_without_boundary');
          else {
            const trigger = boundary.rec.compactMetadata?.trigger === 'manual' ? 'manual' : 'auto';
            const summary = typeof rec.message?.content === 'string' ? rec.message.content : texts(blocksOf(rec)).join('\n\n');
            const anchor = compactionAnchorEntry({
              trigger,
              summary,
              cursorOrderSeq: this.coveredThrough(boundary),
              sourceEntryIds: [],
              model: { id: this.model, vendor: 'anthropic' },
            });
            out.push({
              ...anchor,
              provenanceKey: sourceKey(sessionId, 'compaction', boundary.rec.uuid ?? boundary.lineNo),
              ...createdAtOf(boundary.rec.timestamp),
            });
            this.boundary = null;
          }
          continue;
        }
        const content = rec.message?.content;
        const userText = typeof content === 'string' ? content : texts(blocksOf(rec)).join('\n\n');
        if (userText !== '') {
          // Meta records (command caveats, injected context) are not what the person typed.
          if (rec.isMeta) out.push(eventEntry(META_EVENT, sourceKey(sessionId, 'meta', uuid), { content: userText }, rec.timestamp));
          // Nor what Claude Code writes as the person without marking it (keyed as the message it was read as before).
          else if (WRITTEN_BY_CLAUDE_CODE.test(userText))
            out.push(eventEntry(META_EVENT, sourceKey(sessionId, 'message', uuid), { content: userText }, rec.timestamp));
          else {
            this.firstPrompt ??= promptTitle(userText) ?? undefined;
            out.push({
              kind: 'message',
              name: 'message/user',
              provenanceKey: sourceKey(sessionId, 'message', uuid),
              payload: { messageId: uuid, role: 'user', status: 'sent', orderSeq: lineNo, content: userText },
              ...at,
            });
          }
        }
        for (const b of blocksOf(rec)) {
          const result = toolResultBlock.safeParse(b);
          if (result.success) {
            const call = this.calls.get(result.data.tool_use_id);
            if (!call) {
              countSkip(skipped, 'user/tool_result_without_call');
              continue;
            }
            let output = outputOf(result.data.content);
            const persisted = typeof output === 'string' ? persistedOutputOf(output, this.sessionDir) : null;
            if (persisted !== null && 'output' in persisted) output = persisted.output;
            else if (persisted !== null) countSkip(skipped, `tool_result/${persisted.missing}`);
            out.push(this.resultEntry(call, result.data.tool_use_id, result.data.is_error === true, output, rec.timestamp));
          } else if (b.type !== 'text') countSkip(skipped, `user/${b.type}`);
        }
        if (userText === '' && blocksOf(rec).length === 0) countSkip(skipped, 'user/empty');
      } else if (rec.type === 'system' && rec.subtype === 'compact_boundary') {
        // Becomes an anchor together with the summary record that follows it (maybe in a later read).
        this.boundary = line;
      } else if (rec.type === 'system') {
        // Hooks, timings, API errors and notices: kept whole, they are small and their shapes vary.
        out.push(eventEntry(`claude-code/system/${rec.subtype ?? 'other'}`, sourceKey(sessionId, 'system', uuid), rec as JsonObject, rec.timestamp));
      } else if (rec.type === 'summary') {
        out.push(eventEntry('claude-code/summary', sourceKey(sessionId, 'summary', lineNo), rec as JsonObject));
      } else if (rec.type === 'custom-title' || rec.type === 'ai-title') {
        const title = envelope.parse(rec);
        if (rec.type === 'custom-title') this.customTitle = title.customTitle || this.customTitle;
        else this.aiTitle = title.aiTitle || this.aiTitle;
        if (this.writtenTitle !== null && this.title !== this.writtenTitle) out.push(this.metaEntry(rec.timestamp ?? this.lastTimestamp));
      } else if (rec.type === 'pr-link') {
        // Claude Code writes it again at the end of every run: keyed by the link, it is one event.
        const { prUrl, prNumber, prRepository } = envelope.parse(rec);
        out.push(eventEntry('claude-code/pr-link', sourceKey(sessionId, 'pr-link', prUrl ?? lineNo), { prUrl, prNumber, prRepository }, rec.timestamp));
      } else {
        // Progress records mirror tool and subagent work that lands elsewhere (they only serve to
        // link subagents); snapshots and queue operations are editor state, not conversation.
        countSkip(skipped, rec.type);
      }
    }
    if (this.boundary) countSkip(skipped, 'system/compact_boundary_awaiting_summary');
    for (const agentId of agents.keys()) if (!linked.has(agentId)) out.push(link(agentId));
    return out;
  }

  /**
   * The last message position a compaction's summary stands for. Messages after the boundary line
   * are the ones it does not cover; a compaction that keeps the latest messages as they were
   * (`preservedSegment`, Claude Code's partial and session-memory compaction) covers only what came
   * before the first of them, which is earlier in the file.
   */
  private coveredThrough(boundary: Line): number {
    const head = boundary.rec.compactMetadata?.preservedSegment?.headUuid;
    const headSeq = head === undefined ? undefined : this.orderSeqOf.get(head);
    return headSeq !== undefined && headSeq <= boundary.lineNo ? headSeq - 1 : boundary.lineNo;
  }

  private resultEntry(call: { messageId: string; name: string }, toolCallId: string, isError: boolean, output: unknown, timestamp?: string): NewEntry {
    return {
      kind: 'tool_result',
      name: call.name,
      provenanceKey: sourceKey(this.sessionId, 'tool_result', call.messageId, toolCallId),
      payload: { messageId: call.messageId, toolCallId, status: isError ? 'error' : 'ok', output: output as JsonObject[string] },
      ...createdAtOf(timestamp),
    };
  }

  /** An API message as its texts so far, and its usage; a message that grew has a new key (its latest record's). */
  private messageEntries(g: Group): NewEntry[] {
    const { messageId } = g;
    const out: NewEntry[] = [
      {
        kind: 'message',
        name: 'message/assistant',
        provenanceKey: sourceKey(this.sessionId, 'message', messageId, g.keyUuid),
        payload: { messageId, role: 'assistant', status: 'sent', orderSeq: g.firstLine, content: g.texts.join('\n\n') },
        ...createdAtOf(g.firstTimestamp),
      },
    ];
    if (g.lastUsage) {
      const u = g.lastUsage;
      const reported = {
        input: u.input_tokens ?? 0,
        output: u.output_tokens ?? 0,
        cacheRead: u.cache_read_input_tokens ?? 0,
        cacheWrite: u.cache_creation_input_tokens ?? 0,
        reasoning: u.output_tokens_details?.thinking_tokens,
      };
      const data: JsonObject = {
        messageId,
        model: g.model ?? this.model,
        usage: tapeUsage(reported, ANTHROPIC_BASIS),
      };
      out.push(eventEntry(ATTEMPT_EVENT, sourceKey(this.sessionId, ATTEMPT_EVENT, messageId), data, g.firstTimestamp));
    }
    return out;
  }
}

/** A file's records that parse and belong to `ownId`'s session; the others are counted by type. */
function parsedLines(t: Transcript, ownId: string, skipped: Record<string, number>): Line[] {
  const out: Line[] = [];
  for (const { lineNo, record: raw } of t.lines) {
    const type = (raw as { type?: unknown } | null)?.type;
    const r = typeof type === 'string' && !CONVERSATION.has(type) ? envelope.safeParse(raw) : record.safeParse(raw);
    if (!r.success) countSkip(skipped, `invalid/${typeof (raw as { type?: unknown })?.type === 'string' ? (raw as { type: string }).type : 'record'}`);
    else if (r.data.sessionId !== undefined && r.data.sessionId !== ownId) countSkip(skipped, otherSession(r.data.type));
    else out.push({ lineNo, rec: r.data });
  }
  return out;
}

/**
 * The Claude Code session a file is of: its name (`<session>.jsonl`, a subagent's
 * `<session>/subagents/agent-<id>.jsonl`) when that is a session id; else (a renamed copy) the
 * first record that names one, else the name.
 */
function ownIdOf(file: string, lines: readonly SourceLine[]): string {
  const named = agentIdOf(file) === null ? file : ownerTranscriptOf(file);
  const fromName = uuidOfName(named);
  if (fromName !== null && path.basename(named) === `${fromName}.jsonl`) return fromName;
  for (const { record: r } of lines) {
    const id = (r as { sessionId?: unknown } | null)?.sessionId;
    if (typeof id === 'string' && id !== '') return id;
  }
  return path.basename(named, '.jsonl');
}

/** The subagent transcripts under `dir`, folders `depth` levels down too, sorted; symbolic links are not followed. */
function subagentFiles(dir: string, depth: number): string[] {
  return listDir(dir).flatMap((d) => {
    if (d.isFile() && agentIdOf(d.name) !== null) return [path.join(dir, d.name)];
    return d.isDirectory() && depth > 0 ? subagentFiles(path.join(dir, d.name), depth - 1) : [];
  });
}

export const claudeCode: TranscriptFormat = {
  name: 'claude-code',
  recognizes: (r) => {
    const p = record.safeParse(r);
    return p.success && RECORD_TYPES.has(p.data.type) && !('payload' in p.data);
  },
  companions: (file) => subagentFiles(companionDirOf(file), COMPANION_DEPTH),
  mapper(file): TranscriptMapper {
    // A subagent file given on its own is still the child session it is under its parent.
    const ownAgent = agentIdOf(file);
    let own: { id: string; session: SessionMapper } | null = null;
    const children = new Map<string, SessionMapper>();
    const taskCalls = new Map<string, string>();
    // Where Claude Code keeps the session's tool outputs: `<session>/`, a subagent's as its parent's.
    const sessionDir = ownerTranscriptOf(file).replace(/\.jsonl$/, '');
    /** The call each subagent's `.meta.json` names: the one that spawned it, read until it says. */
    const metaCalls = new Map<string, string>();
    return {
      map(main, companions): Mapped {
        const skipped: Record<string, number> = {};
        if (own === null) {
          const id = ownIdOf(file, main);
          const parent = `claude-code:${id}`;
          own = {
            id,
            session:
              ownAgent === null ? new SessionMapper(parent, file, sessionDir) : new SessionMapper(`${parent}/agent-${ownAgent}`, file, sessionDir, parent),
          };
        }
        const { id: ownId, session } = own;
        const lines = parsedLines({ file, lines: main }, ownId, skipped);
        noteTaskCalls(lines, taskCalls);
        const fed = companions.flatMap((c) => {
          const agentId = agentIdOf(c.file);
          if (agentId === null) return [];
          let child = children.get(agentId);
          if (child === undefined)
            children.set(agentId, (child = new SessionMapper(`${session.sessionId}/agent-${agentId}`, c.file, sessionDir, session.sessionId)));
          if (!metaCalls.has(agentId)) {
            const call = spawningCallOf(c.file.replace(/\.jsonl$/, '.meta.json'));
            if (call !== undefined) metaCalls.set(agentId, call);
          }
          return [{ agentId, child, lines: parsedLines(c, ownId, skipped) }];
        });
        const agents = new Map([...children.keys()].map((agentId) => [agentId, metaCalls.get(agentId) ?? taskCalls.get(agentId)] as const));
        const sessions: MappedSession[] = [{ sessionId: session.sessionId, entries: session.map(lines, agents, skipped) }];
        for (const { child, lines: childLines } of fed) sessions.push({ sessionId: child.sessionId, entries: child.map(childLines, new Map(), skipped) });
        return { sessions, skipped };
      },
    };
  },
};
