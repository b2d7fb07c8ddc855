import { discardFork, forkSession, mergeFork, type ForkReceipt } from '../../store/forks';
import type { TapeReader } from '../../store/lineage';
import type { EntryFilter } from '../../store/queries';
import { exportSession } from '../../store/tapeFile';
import type { TapeStore } from '../../store/tapeStore';
import type { Entry, JsonObject } from '../../tape/entry';
import type { EffectiveView, FoldOptions } from '../../tape/fold';
import type { FoldCache } from '../../tape/foldCache';
import type { DiscardReceipt, MergeReceipt } from '../../tape/fork';
import { workspaceStateAt, type WorkspaceState } from '../../tape/workspaceCheckpoint';
import { AgentSession, type AgentSessionOptions, type TurnOptions } from '../agentSession';
import type { CheckpointStore } from '../checkpoints/checkpointStore';
import { applyRestore, planRestore, type PlannedRestore, type RestoreReceipt } from '../checkpoints/restore';
import { compact, type CompactOutcome } from '../compactor';
import type { ModelPort } from '../model/modelPort';
import { SessionTapePort } from '../tapeToolPort/sessionTapePort';
import type { TurnOutcome } from '../turnEvent';
import { amendCompaction, type AmendReceipt } from './amendCompaction';
import { appendHandoff } from './handoff';
import type { TapeParts } from './tapeParts';

/** What a host chooses for a turn; the tape, the session and the fold cache are the handle's. */
export type TurnSetup = Omit<AgentSessionOptions, 'tape' | 'sessionId'>;

/**
 * One session of an open tape, the one door hosts go through for it: the chat participant, the
 * palette commands, the inspector's and the replay's glue, and the CLI. Every entry id it takes or
 * returns is a position of the session's view through the lineage reader: a fork's entries are
 * numbered on from its parent's, as its fold, context and manifests number them.
 */
export class SessionHandle {
  constructor(
    private readonly tape: TapeParts,
    readonly sessionId: string,
  ) {}

  get store(): TapeStore {
    return this.tape.store;
  }

  get reader(): TapeReader {
    return this.tape.reader;
  }

  get folds(): FoldCache {
    return this.tape.folds;
  }

  /** The last position of the session's view; 0 when the tape has no such session. */
  head(): number {
    return this.reader.headEntryId(this.sessionId);
  }

  entry(position: number): Entry | undefined {
    return this.reader.getEntry(this.sessionId, position);
  }

  entries(filter?: EntryFilter): Entry[] {
    return this.reader.entries(this.sessionId, filter);
  }

  view(options: FoldOptions): EffectiveView {
    return this.folds.view(this.sessionId, options);
  }

  /** The tape tools' port on this session, for tools a host runs outside a turn of its own. */
  tapePort(): SessionTapePort {
    return new SessionTapePort(this.tape, this.sessionId);
  }

  /** One turn of an agent session over the shared fold cache. */
  runTurn(text: string, setup: TurnSetup, turn: TurnOptions): Promise<TurnOutcome> {
    return new AgentSession({ ...setup, tape: this.tape, sessionId: this.sessionId }).runTurn(text, turn);
  }

  /** A manual compaction of the context in force. */
  compact(model: ModelPort, signal: AbortSignal): Promise<CompactOutcome> {
    return compact(this.tape, this.sessionId, model, { trigger: 'manual', signal });
  }

  handoff(name: string, summary: string, state?: JsonObject): Promise<Entry> {
    return appendHandoff(this.tape, this.sessionId, name, summary, state);
  }

  /**
   * Pins facts or entries to the compaction in force, replaces its summary, or undoes it
   * (`Amendment`, checked here: hosts pass what the user or a webview sent). `expectedAnchor` is
   * the compaction the caller showed; another in force is refused as stale.
   */
  amendCompaction(amendment: unknown, expectedAnchor?: number): Promise<AmendReceipt> {
    return amendCompaction(this.tape, this.sessionId, amendment, expectedAnchor);
  }

  /** A fork of this session at a position of its view (its head by default). */
  fork(options: { at?: number; forkId?: string } = {}): Promise<ForkReceipt> {
    return forkSession(this.store, this.sessionId, options);
  }

  /** Merges this session, a fork, into its parent. */
  merge(): Promise<MergeReceipt & { alreadyMerged: boolean }> {
    return mergeFork(this.store, this.sessionId);
  }

  /** Discards this session, a fork: its parent gets the receipt. */
  discard(reason?: string): Promise<DiscardReceipt> {
    return discardFork(this.store, this.sessionId, reason);
  }

  delete(): Promise<{ entries: number }> {
    return this.store.deleteSession(this.sessionId);
  }

  /**
   * The checkpoint standing for the workspace at a position of the view; null when the session
   * recorded none at or before it. The whole view is read: a turn's `turn_start` checkpoint is
   * recorded after its `turn/start` and stands for the workspace from there.
   */
  workspaceStateAt(at: number): WorkspaceState | null {
    return workspaceStateAt(this.entries({ kind: 'event' }), at);
  }

  /**
   * What restoring the workspace's files to the checkpoint at or before a position would change
   * (NoCheckpointError when the session has none there, CheckpointMissingError when the store lacks
   * it, WrongWorkspaceError when the store is opened on another folder than the checkpoint's);
   * nothing changes until `restore` applies it.
   */
  planRestore(checkpoints: CheckpointStore, at: number, signal?: AbortSignal): Promise<PlannedRestore> {
    return planRestore(this.sessionId, this.entries({ kind: 'event' }), at, checkpoints, signal);
  }

  /**
   * Applies a planned restore, all or nothing, recording it on this session (a fork restores into
   * itself): StalePlanError when a file it touches changed since the plan, RestoreFailedError when
   * writing failed part way (the files put back, `workspace/restore-failed` on the tape).
   */
  restore(checkpoints: CheckpointStore, planned: PlannedRestore, signal?: AbortSignal): Promise<RestoreReceipt> {
    if (planned.sessionId !== this.sessionId)
      throw new Error(`a restore planned for session ${planned.sessionId} cannot be applied through session ${this.sessionId}`);
    return applyRestore(
      planned,
      checkpoints,
      async (entries) => {
        const results = await this.store.appendMany(this.sessionId, entries, { durable: true });
        return this.reader.positionOf(this.sessionId, results[results.length - 1].entry.entryId);
      },
      signal,
    );
  }

  /** The session's stored rows, byte for byte, to a `.tape.jsonl` or `.tape.sqlite` file. */
  export(file: string, options: { replace?: boolean } = {}): Promise<{ entries: number }> {
    return exportSession(this.store, this.sessionId, file, options);
  }
}
