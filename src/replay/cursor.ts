import { FORK_MERGE, SUBAGENT_LINKED, VIEW_ASSEMBLED } from '../tape/entryNames';
import type { TapeReader } from '../store/lineage';
import { buildContext, resolveSelector, type ContextResult } from '../tape/context';
import type { Entry } from '../tape/entry';
import type { EffectiveView, FoldRow } from '../tape/fold';
import { FORK_START_ENTRY_ID, linkData, mergeReceiptData, receiptOf } from '../tape/fork';
import { manifestOfEntry, ManifestError, verifyManifest, type ManifestCheck, type ViewManifest } from '../tape/manifest';
import { builtinProjections } from '../tape/projections';
import type { AnyProjection } from '../tape/projections/projection';
import { ReplayBreakpoints } from './breakpoints';
import { ProjectionTrail } from './projectionTrail';
import { SeekableView } from './seekableView';

/** Why the cursor stopped where it is: `entry` at a session's first entry, `end` at its last. */
export type StopReason = 'entry' | 'step' | 'breakpoint' | 'function breakpoint' | 'end';

export interface ReplayStop {
  reason: StopReason;
  /** Why, in words, for the person stepping. */
  description: string;
}

/** One frame of the replay's call stack: a session, read up to `head`, with the cursor at `position`. */
export interface ReplayFrameInfo {
  readonly sessionId: string;
  /** The session's head when the replay began, or the head a subagent link froze. */
  readonly head: number;
  readonly position: number;
  /** The parent frame's entry (a link or merge receipt) this frame was stepped into from; null for the first. */
  readonly enteredFrom: number | null;
}

/** What a cursor on a `view/assembled` event shows: the manifest and whether it still matches its hash. */
export type ManifestAtCursor = { manifest: ViewManifest; check: ManifestCheck } | { error: string };

/** Deeper nesting of subagents and forks is refused, as the lineage reader refuses deeper forks. */
const MAX_FRAMES = 32;

const FINAL = { includePending: false };
const SHOWN = { includePending: true };

class Frame implements ReplayFrameInfo {
  private at: number;
  /**
   * Set when a subagent frame was just left back to its link: a continue from there goes on past
   * the link instead of into the child again. Any move clears it.
   */
  leftChildAt: number | null = null;
  private shown: SeekableView | undefined;
  private final: SeekableView | undefined;
  private trail: ProjectionTrail | undefined;

  constructor(
    private readonly reader: TapeReader,
    readonly sessionId: string,
    readonly rows: readonly FoldRow[],
    readonly enteredFrom: number | null,
    start: number,
    private readonly projections: readonly AnyProjection[],
  ) {
    this.at = start;
  }

  get position(): number {
    return this.at;
  }

  set position(p: number) {
    this.at = p;
    this.leftChildAt = null;
  }

  get head(): number {
    return this.rows.length;
  }

  entry(): Entry {
    return this.reader.requireEntry(this.sessionId, this.position);
  }

  /** The fold at the cursor, pending messages included, as an inspector shows it. */
  view(): EffectiveView {
    this.shown ??= new SeekableView(this.rows, SHOWN);
    return this.shown.at(this.position);
  }

  /** What a request made right after the cursor's entry would be built from: the `last` anchor selection of the final view. */
  context(): ContextResult {
    this.final ??= new SeekableView(this.rows, FINAL);
    const view = this.final.at(this.position);
    const { anchorEntryId } = resolveSelector(view.anchors, { kind: 'last' });
    return buildContext({ view, anchorEntryId }, (entryId) => this.reader.requireEntry(this.sessionId, entryId));
  }

  projectionViews(): Record<string, unknown> {
    this.trail ??= new ProjectionTrail(this.reader, this.sessionId, this.projections);
    return this.trail.viewsAt(this.position);
  }
}

/**
 * The step replay's runtime (SPEC 2.7): a cursor over a session of a tape, with no debug protocol in
 * it. A position is an entry id; the state there is the fold of the entries up to it (SeekableView,
 * moved both ways without refolding the session). Stepping into a `subagent/linked` event or a
 * `fork/merge` receipt opens the child or fork session as a new frame, so the frames are the
 * session lineage the debugger shows as its call stack. A replay reads the tape as it was when it
 * began: appends made meanwhile are past every frame's head.
 */
export class ReplayCursor {
  private readonly frames: Frame[];

  constructor(
    private readonly reader: TapeReader,
    sessionId: string,
    readonly breakpoints = new ReplayBreakpoints(),
    private readonly projections: readonly AnyProjection[] = builtinProjections(),
  ) {
    const head = reader.headEntryId(sessionId);
    if (head === 0) throw new Error(`the tape has no session ${JSON.stringify(sessionId)}`);
    this.frames = [this.frameOf(sessionId, head, 1, null)];
  }

  /** The frames, outermost (the session the replay began with) first. */
  get stack(): readonly ReplayFrameInfo[] {
    return this.frames;
  }

  private get top(): Frame {
    return this.frames[this.frames.length - 1];
  }

  private frameOf(sessionId: string, head: number, start: number, enteredFrom: number | null): Frame {
    const rows = this.reader.foldRows(sessionId, 0).slice(0, head);
    rows.forEach((r, i) => {
      if (r.entryId !== i + 1) throw new Error(`session ${JSON.stringify(sessionId)} is damaged: entry ${i + 1} is missing (found ${r.entryId} in its place)`);
    });
    if (rows.length < head) throw new Error(`session ${JSON.stringify(sessionId)} ends at entry ${rows.length}, before its recorded head ${head}`);
    return new Frame(this.reader, sessionId, rows, enteredFrom, start, this.projections);
  }

  private frame(depth: number): Frame {
    const f = this.frames[depth];
    if (f === undefined) throw new RangeError(`there is no frame ${depth}; the replay has ${this.frames.length}`);
    return f;
  }

  // ---- moving ----

  /** Back to the first entry of the first session, with every stepped-into frame left. */
  restart(): ReplayStop {
    this.frames.length = 1;
    this.frames[0].position = 1;
    return { reason: 'entry', description: `start of session ${this.frames[0].sessionId}` };
  }

  /** One entry on; past a stepped-into session's last entry, back to the entry it was entered from. */
  next(): ReplayStop {
    const f = this.top;
    if (f.position < f.head) {
      f.position++;
      return { reason: 'step', description: `entry ${f.position}` };
    }
    if (this.frames.length > 1) return this.leave();
    return { reason: 'end', description: `end of session ${f.sessionId} (entry ${f.head})` };
  }

  /** One entry back; before a stepped-into session's first entry, back to the entry it was entered from. */
  back(): ReplayStop {
    const f = this.top;
    if (f.position > 1) {
      f.position--;
      return { reason: 'step', description: `entry ${f.position}` };
    }
    if (this.frames.length > 1) return this.leave();
    return { reason: 'entry', description: `start of session ${f.sessionId}` };
  }

  /**
   * On to the next entry a breakpoint stops at. Like a debugger's continue through a call, it runs
   * through the subagents the session links (a breakpoint in one stops there); forks are not
   * entered, their merged entries are already in the session. At the end of a stepped-into session
   * it goes on in the parent.
   */
  continue(): ReplayStop {
    // Stopped on a link (not just back from its child): the continue runs through the child first.
    const at = this.top;
    if (at.leftChildAt !== at.position) this.enterSubagent(at, at.position, 'first');
    for (;;) {
      const f = this.top;
      let entered = false;
      for (let id = f.position + 1; id <= f.head && !entered; id++) {
        const hit = this.breakpoints.hit(f.sessionId, f.rows[id - 1]);
        if (hit !== null) {
          f.position = id;
          return { reason: hit.kind, description: hit.description };
        }
        entered = this.enterSubagent(f, id, 'first');
      }
      if (entered) continue;
      if (this.frames.length === 1) {
        const from = f.position;
        f.position = f.head;
        return { reason: 'end', description: `end of session ${f.sessionId} (entry ${f.head}): no breakpoint after entry ${from}` };
      }
      this.pop();
    }
  }

  /** Back to the previous entry a breakpoint stops at, through linked subagents from their ends, leaving stepped-into sessions through their start. */
  reverseContinue(): ReplayStop {
    let from = this.top.position - 1;
    for (;;) {
      const f = this.top;
      let entered = false;
      for (let id = from; id >= 1 && !entered; id--) {
        const hit = this.breakpoints.hit(f.sessionId, f.rows[id - 1]);
        if (hit !== null) {
          f.position = id;
          return { reason: hit.kind, description: hit.description };
        }
        // Back out of a child through its start lands on its link, which is not entered again.
        entered = id !== f.leftChildAt && this.enterSubagent(f, id, 'last');
      }
      if (entered) {
        from = this.top.head;
        continue;
      }
      if (this.frames.length === 1) {
        f.position = 1;
        return { reason: 'entry', description: `start of session ${f.sessionId}: no breakpoint before` };
      }
      this.pop();
      // Out of a session through its start lands on the entry it was entered from, which may stop too.
      from = this.top.position;
    }
  }

  /** Leaves the top frame; the frame below stays on the entry it was entered from. */
  private pop(): Frame {
    const left = this.frames.pop() as Frame;
    this.top.leftChildAt = this.top.position;
    return left;
  }

  /**
   * When entry `id` of `f` links a subagent, opens it as a frame for a continue to run through
   * (`first`: before its first entry; `last`: after its last) and says so.
   */
  private enterSubagent(f: Frame, id: number, from: 'first' | 'last'): boolean {
    const row = f.rows[id - 1];
    if (row.kind !== 'event' || row.name !== SUBAGENT_LINKED || this.frames.length >= MAX_FRAMES) return false;
    const target = this.childAt(this.reader.requireEntry(f.sessionId, id));
    if (target === null || this.frames.some((x) => x.sessionId === target.sessionId)) return false;
    f.position = id;
    const child = this.frameOf(target.sessionId, target.head, target.start, id);
    child.position = from === 'first' ? target.start - 1 : target.head + 1;
    this.frames.push(child);
    return true;
  }

  /** Into the subagent of a `subagent/linked` event or the fork of a `fork/merge` receipt; elsewhere, `next`. */
  stepIn(): ReplayStop {
    const f = this.top;
    const target = this.childAt(f.entry());
    if (target === null) return this.next();
    if (this.frames.length >= MAX_FRAMES) throw new Error(`cannot step into ${target.sessionId}: the replay is already ${MAX_FRAMES} sessions deep`);
    if (this.frames.some((x) => x.sessionId === target.sessionId))
      throw new Error(`cannot step into ${target.sessionId}: it is already on the replay's stack (the tape links it in a loop)`);
    this.frames.push(this.frameOf(target.sessionId, target.head, target.start, f.position));
    return { reason: 'step', description: `into ${target.what} ${target.sessionId}` };
  }

  /** Back to the entry the current session was stepped into from; in the first session, `continue`. */
  stepOut(): ReplayStop {
    return this.frames.length > 1 ? this.leave() : this.continue();
  }

  private leave(): ReplayStop {
    const left = this.pop();
    return { reason: 'step', description: `out of ${left.sessionId}, back at entry ${this.top.position} of ${this.top.sessionId}` };
  }

  /** The session an entry leads into, read up to the head the entry records. */
  private childAt(entry: Entry): { sessionId: string; head: number; start: number; what: string } | null {
    const link = receiptOf(entry, SUBAGENT_LINKED, linkData);
    if (link !== null) {
      // A link without a frozen head (an older ingest) names the child but lets nothing through.
      const head = Math.min(link.childHeadEntryId ?? 0, this.reader.headEntryId(link.childSessionId));
      return head < 1 ? null : { sessionId: link.childSessionId, head, start: 1, what: 'subagent' };
    }
    const merge = receiptOf(entry, FORK_MERGE, mergeReceiptData);
    if (merge !== null) {
      if (this.reader.forkOf(merge.forkSessionId) === null) return null;
      // The receipt counts the fork's own stored entries; the frame starts at its `fork/start`, right after the parent's entries.
      const head = Math.min(this.reader.headEntryId(merge.forkSessionId), this.reader.positionOf(merge.forkSessionId, merge.forkHeadEntryId));
      const start = this.reader.positionOf(merge.forkSessionId, FORK_START_ENTRY_ID);
      return head < start ? null : { sessionId: merge.forkSessionId, head, start, what: 'fork' };
    }
    return null;
  }

  // ---- the state at a frame's position (depth 0 is the outermost frame) ----

  entryAt(depth: number): Entry {
    return this.frame(depth).entry();
  }

  viewAt(depth: number): EffectiveView {
    return this.frame(depth).view();
  }

  contextAt(depth: number): ContextResult {
    return this.frame(depth).context();
  }

  projectionsAt(depth: number): Record<string, unknown> {
    return this.frame(depth).projectionViews();
  }

  /** The manifest when the frame's entry is a `view/assembled` event, else null. */
  manifestAt(depth: number): ManifestAtCursor | null {
    const entry = this.frame(depth).entry();
    if (entry.kind !== 'event' || entry.name !== VIEW_ASSEMBLED) return null;
    try {
      return { manifest: manifestOfEntry(entry), check: verifyManifest(entry.payload.data) };
    } catch (e) {
      if (e instanceof ManifestError) return { error: e.message };
      throw e;
    }
  }
}
