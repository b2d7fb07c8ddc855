import { randomUUID } from 'crypto';
import type { TapeReader } from '../store/lineage';
import { assembleFromCache } from '../tape/contextAssembly';
import { reserveFor } from '../tape/contextPolicy';
import type { FoldCache } from '../tape/foldCache';
import type { SamplingOptions } from '../tape/requestParams';
import { needsSystemPrompt, systemPromptEntry } from '../tape/systemPromptEntry';
import { shouldAutoCompact } from './compaction';
import { compact } from './compactor';
import { buildSystemPrompt, type EnvironmentFacts } from './context/systemPrompt';
import { runTurn, type AssembledRequest, type RequestSlot } from './loop';
import type { TurnCheckpoints } from './checkpoints/turnCheckpoints';
import type { ModelPort, ToolDefinition } from './model/modelPort';
import type { RetryPolicy } from './model/retry';
import type { TapeParts } from './session/tapeParts';
import { DEFAULT_SUBAGENT_MAX_ROUNDS, SubagentRunner } from './subagent/subagentRunner';
import { SessionTapePort } from './tapeToolPort/sessionTapePort';
import { TAPE_TOOLS } from './tools/tapeTools';
import { runSubagentTool } from './tools/runSubagent';
import { ToolRegistry, type Toolbox } from './tools/tool';
import { WORKSPACE_TOOLS } from './tools/workspaceTools';
import type { CompactionNotice, SessionEvent, TurnOutcome } from './turnEvent';
import { NodeWorkspace } from './workspace/nodeWorkspace';
import type { Permissions } from './workspace/permissions';
import type { WorkspacePort } from './workspace/workspacePort';

export const DEFAULT_MAX_ROUNDS = 20;

export interface AgentSessionOptions {
  /** The open tape's store, reader and fold cache, so a session object per request refolds only what is new. */
  tape: TapeParts;
  sessionId: string;
  model: ModelPort;
  /** A directory (confined by a NodeWorkspace) or the host's own port. */
  workspace: string | WorkspacePort;
  permissions: Permissions;
  environment: EnvironmentFacts;
  /** The workspace's AGENTS.md as the host read it; null when there is none. */
  agentsMd?: string | null;
  /** The core's workspace and tape tools when omitted. */
  tools?: Toolbox;
  maxRounds?: number;
  /** Requests per turn of each subagent the session starts (default DEFAULT_SUBAGENT_MAX_ROUNDS). */
  subagentMaxRounds?: number;
  /** Share of the input budget at which a request is preceded by a compaction (default 0.8). */
  compactionShare?: number;
  /** Sent with every request of the session's turns and recorded in each manifest's `params` (none: the server's defaults). */
  sampling?: SamplingOptions;
  retry?: RetryPolicy;
  now?: () => number;
  /** Workspace checkpoints of the session's turns (none: no checkpoints). A subagent's changes are in its parent's turn's. */
  checkpoints?: TurnCheckpoints;
}

/** The core's tools: the workspace tools, the tape tools and run_subagent. */
export function defaultTools(): ToolRegistry {
  return new ToolRegistry([...WORKSPACE_TOOLS, ...TAPE_TOOLS, runSubagentTool]);
}

export interface TurnOptions {
  signal: AbortSignal;
  onEvent?: (event: SessionEvent) => void;
}

/**
 * One agent session on a tape, for any host (the CLI, the chat participant): it wires the loop to
 * the tape's fold cache, the context assembler, the tools and auto-compaction. The parts do the work.
 */
export class AgentSession {
  readonly folds: FoldCache;
  private readonly tools: Toolbox;
  // Taken again at each turn: a host's toolbox can change between turns (trust granted, settings).
  private toolSpecs: ToolDefinition[] = [];
  private readonly workspace: WorkspacePort;
  private readonly tapePort: SessionTapePort;
  private readonly now: () => number;
  private probe: { slot: RequestSlot; head: number; assembled: AssembledRequest } | undefined;

  /** Reads go through the lineage reader, so a fork's context includes its parent up to the fork point. */
  private readonly reader: TapeReader;

  constructor(private readonly options: AgentSessionOptions) {
    this.reader = options.tape.reader;
    this.folds = options.tape.folds;
    this.tools = options.tools ?? defaultTools();

    // One for the session: its projection runner keeps the title between turns.
    this.tapePort = new SessionTapePort(options.tape, options.sessionId);
    this.workspace = typeof options.workspace === 'string' ? new NodeWorkspace(options.workspace) : options.workspace;
    this.now = options.now ?? Date.now;
  }

  async runTurn(text: string, { signal, onEvent }: TurnOptions): Promise<TurnOutcome> {
    const { tape, sessionId, model } = this.options;
    await this.writeSystemPrompt();
    this.toolSpecs = this.tools.specs();
    // A failed auto-compaction is not tried again in the same turn: the provider just failed, and
    // budget trimming keeps the requests within the window meanwhile.
    let compactionFailed = false;
    const beforeRequest = async (slot: RequestSlot): Promise<CompactionNotice | undefined> => {
      const { turnId, requestSeq } = slot;
      if (compactionFailed || !this.overThreshold(slot)) return undefined;
      const outcome = await compact(tape, sessionId, model, { trigger: 'auto', signal, keepFromOrderSeq: this.inputOrderSeq() });
      if ('anchor' in outcome) return { anchorName: outcome.anchor.name, anchorEntryId: outcome.anchor.entryId, totals: outcome.audit.totals };
      // A cancel is the turn's to report.
      if (!signal.aborted) {
        compactionFailed = true;
        onEvent?.({ type: 'error', kind: 'compaction', turnId, requestSeq, message: outcome.error });
      }
      return undefined;
    };
    return runTurn(
      {
        tape: tape.store,
        sessionId,
        newTurnId: randomUUID,
        // The view is ordered by orderSeq: its last message has the greatest.
        lastOrderSeq: () => Math.max(0, this.folds.view(sessionId, { includePending: true }).messages.at(-1)?.orderSeq ?? 0),
        model,
        tools: this.tools,
        toolContext: { workspace: this.workspace, permissions: this.options.permissions, tape: this.tapePort, subagents: this.subagents(onEvent) },
        assemble: (slot) => this.assemble(slot),
        beforeRequest,
        maxRounds: this.options.maxRounds ?? DEFAULT_MAX_ROUNDS,
        signal,
        retry: this.options.retry,
        now: this.now,
        onEvent,
        checkpoints: this.options.checkpoints,
      },
      { text },
    );
  }

  /** Children of this session's turn: same store, model, workspace, permissions and fold cache; their tools are some of this session's. */
  private subagents(onEvent: ((event: SessionEvent) => void) | undefined): SubagentRunner {
    return new SubagentRunner({
      store: this.options.tape.store,
      parentSessionId: this.options.sessionId,
      parentTools: this.tools,
      maxRounds: this.options.subagentMaxRounds ?? DEFAULT_SUBAGENT_MAX_ROUNDS,
      onEvent,
      runChild: ({ sessionId, tools, maxRounds, prompt, signal, onEvent: onChildEvent }) =>
        new AgentSession({ ...this.options, sessionId, tools, maxRounds, checkpoints: undefined }).runTurn(prompt, { signal, onEvent: onChildEvent }),
    });
  }

  private async writeSystemPrompt(): Promise<void> {
    const { tape, sessionId, environment, agentsMd } = this.options;
    const prompt = buildSystemPrompt({ environment, agentsMd });
    const inForce = this.folds.view(sessionId, { includePending: false }).systemPromptEntryId;
    const hash = inForce === null ? null : this.reader.requireEntry(sessionId, inForce).payload.hash;
    if (needsSystemPrompt(typeof hash === 'string' ? hash : null, prompt)) await tape.store.append(sessionId, systemPromptEntry(prompt));
  }

  /** The request for `slot`: the one the compaction check assembled, when nothing was appended since. */
  private assemble(slot: RequestSlot): AssembledRequest {
    const probe = this.probe;
    this.probe = undefined;
    const head = this.reader.headEntryId(this.options.sessionId);
    if (probe !== undefined && probe.slot.turnId === slot.turnId && probe.slot.requestSeq === slot.requestSeq && probe.head === head) return probe.assembled;
    return this.assembleNow(slot);
  }

  private assembleNow({ turnId, requestSeq }: RequestSlot): AssembledRequest {
    const { sessionId, model } = this.options;
    return assembleFromCache(this.folds, {
      sessionId,
      turnId,
      requestSeq,
      viewId: `${turnId}/${requestSeq}`,
      assembledAt: this.now(),
      getEntry: (id) => this.reader.requireEntry(this.options.sessionId, id),
      model: model.info,
      tools: this.toolSpecs,
      sampling: this.options.sampling,
      countTokens: (input) => model.countTokens(input),
    });
  }

  /**
   * Whether the next request, untrimmed, would pass the compaction share of the input budget. An
   * assembly that had to drop history was over the whole budget; otherwise its estimate is the
   * untrimmed prompt's.
   */
  private overThreshold(slot: RequestSlot): boolean {
    const assembled = this.assembleNow(slot);
    // Kept for the request itself when the check leads to no compaction (see assemble).
    this.probe = { slot, head: this.reader.headEntryId(this.options.sessionId), assembled };
    const { manifest } = assembled;
    const { contextWindow, maxOutput, estimatedPrompt } = manifest.tokenBudget;
    const inputBudget = contextWindow - maxOutput - reserveFor(contextWindow);
    return manifest.excluded.length > 0 || shouldAutoCompact(estimatedPrompt, inputBudget, this.options.compactionShare);
  }

  /** The last user message: the input the turn answers, which a compaction must leave to the request. */
  private inputOrderSeq(): number | undefined {
    const { messages } = this.folds.view(this.options.sessionId, { includePending: false });
    for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return messages[i].orderSeq;
    return undefined;
  }
}
