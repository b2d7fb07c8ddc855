import { CheckpointStore, DEFAULT_CHECKPOINT_LIMITS } from '../agent/checkpoints/checkpointStore';
import { attributeLines } from '../tape/blame/lineAttribution';
import type { TapeStore } from '../store/tapeStore';
import { EditIndex, type EntryRef } from './editIndex';
import { fileHistory } from './fileHistory';
import { LineOrigins, type LineOrigin } from './lineOrigins';

export type { LineOrigin };

/** Lines `startLine`..`endLine` (from 1, inclusive) of the file as it is now. */
export interface BlameRange {
  startLine: number;
  endLine: number;
  origin: LineOrigin | null;
}

export interface TapeBlameOptions {
  /** The workspace folder (its real path): edits are placed relative to it. */
  workspaceRoot: string;
  /** Our agent's checkpoint store beside the tape, or null when there is none. */
  checkpointsDir?: string | null;
}

/**
 * Agent blame of a workspace's files from one tape: every agent's edits of a file, followed
 * through later changes to the file as it is now.
 */
export class TapeBlame {
  private readonly index: EditIndex;
  private checkpoints: Promise<CheckpointStore | null> | undefined;

  constructor(
    readonly store: TapeStore,
    readonly options: TapeBlameOptions,
  ) {
    this.index = new EditIndex(store, options.workspaceRoot);
  }

  /** Whether any edit on the tape may touch `relPath` (workspace-relative, `/`-separated). */
  touches(relPath: string): boolean {
    return this.index.changesOf(relPath).length > 0;
  }

  /** Every workspace file (workspace-relative, `/`-separated) some edit on the tape names. */
  touchedPaths(): string[] {
    return this.index.paths();
  }

  /** Ranges covering every line of `text` (the file `relPath` as it is now), in order. */
  async blame(relPath: string, text: string, signal?: AbortSignal): Promise<BlameRange[]> {
    signal?.throwIfAborted();
    const events = await fileHistory(this.store, this.index, relPath, (id, file) => this.fileAt(id, file), signal);
    signal?.throwIfAborted();
    const lines = attributeLines(text, events);
    const origins = new LineOrigins(this.store);
    const ranges: BlameRange[] = [];
    let last: EntryRef | null | undefined;
    lines.forEach((ref, i) => {
      if (ranges.length > 0 && ref === last) ranges[ranges.length - 1].endLine = i + 1;
      else ranges.push({ startLine: i + 1, endLine: i + 1, origin: ref === null ? null : origins.originOf(ref) });
      last = ref;
    });
    return ranges;
  }

  /** The file in one of our agent's checkpoints as text; null when there is no store or it cannot give it. */
  private async fileAt(checkpointId: string, relPath: string): Promise<string | null> {
    const dir = this.options.checkpointsDir;
    if (dir === undefined || dir === null) return null;
    this.checkpoints ??= CheckpointStore.open(dir, this.options.workspaceRoot, { create: false }).catch(() => null);
    const store = await this.checkpoints;
    if (store === null) return null;
    const bytes = await store.fileAt(checkpointId, relPath, DEFAULT_CHECKPOINT_LIMITS.maxFileBytes).catch(() => null);
    return bytes === null ? null : bytes.toString('utf8');
  }
}
