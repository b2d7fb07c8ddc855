import type { BlameRange, LineOrigin } from '../../blame/tapeBlame';

/** One turn that wrote lines of the file: its origin (the first range's), the lines it holds now and where they start. */
export interface BlameTurn {
  origin: LineOrigin;
  lines: number;
  /** The first of its ranges, in file order. */
  first: BlameRange;
}

/**
 * The file's ranges grouped by the turn that wrote them (a session's turn; an edit outside any turn
 * stands alone), in the order they first appear in the file, for Blame File's list.
 */
export function blameTurns(ranges: readonly BlameRange[]): BlameTurn[] {
  const turns = new Map<string, BlameTurn>();
  for (const r of ranges) {
    if (r.origin === null) continue;
    const key = JSON.stringify([r.origin.sessionId, r.origin.turn ?? `entry ${r.origin.entryId}`]);
    const turn = turns.get(key);
    if (turn === undefined) turns.set(key, { origin: r.origin, lines: r.endLine - r.startLine + 1, first: r });
    else turn.lines += r.endLine - r.startLine + 1;
  }
  return [...turns.values()];
}
