import type { TapeReader } from '../../store/lineage';
import { readableLinks, readLinked, searchScoped, type SearchScope } from '../../store/subagentLinks';
import type { TapeStore } from '../../store/tapeStore';
import { resolveSelector } from '../../tape/context';
import type { Entry, JsonObject, Kind } from '../../tape/entry';
import type { FoldCache } from '../../tape/foldCache';
import { ProjectionRegistry, ProjectionRunner } from '../../tape/projections/projection';
import { titleProjection } from '../../tape/projections/title';
import type { SearchHit } from '../../store/search';
import { appendHandoff } from '../session/handoff';
import type { TapeParts } from '../session/tapeParts';
import type { TapeAnchor, TapeInfo, TapePort } from './tapePort';

/**
 * The tape tools' port over one session of an open tape; the tape's fold cache and this port's
 * title projection make repeated calls pay only for new entries. It reads through the lineage
 * reader, so a fork sees its parent up to the fork point.
 */
export class SessionTapePort implements TapePort {
  private readonly store: TapeStore;
  private readonly reader: TapeReader;
  private readonly folds: FoldCache;
  private readonly projections: ProjectionRunner;

  constructor(
    private readonly tape: TapeParts,
    readonly sessionId: string,
  ) {
    ({ store: this.store, reader: this.reader, folds: this.folds } = tape);
    this.projections = new ProjectionRunner(this.reader, new ProjectionRegistry());
  }

  search(query: string, options: { kinds?: readonly Kind[]; limit: number; scope?: SearchScope }): SearchHit[] {
    return searchScoped(this.store, this.sessionId, query, { scope: options.scope ?? 'current', kinds: options.kinds, limit: options.limit });
  }

  window(entryIds: readonly number[], before: number, after: number, childSessionId?: string): Entry[] {
    const child = childSessionId === undefined || childSessionId === this.sessionId ? null : readLinked(this.store, this.sessionId, childSessionId);
    const sessionId = child?.childSessionId ?? this.sessionId;
    const head = child?.frozenHead ?? this.reader.headEntryId(sessionId);
    const ranges = entryIds
      .filter((id) => id >= 1 && id <= head)
      .map((id) => [Math.max(1, id - before), Math.min(head, id + after)] as const)
      .sort((a, b) => a[0] - b[0]);
    // Overlapping windows are merged so each entry is read and shown once.
    const merged: [number, number][] = [];
    for (const [from, to] of ranges) {
      const last = merged[merged.length - 1];
      if (last !== undefined && from <= last[1] + 1) last[1] = Math.max(last[1], to);
      else merged.push([from, to]);
    }
    return merged.flatMap(([fromEntryId, toEntryId]) => this.reader.entries(sessionId, { fromEntryId, toEntryId }));
  }

  links(): ReturnType<TapePort['links']> {
    return readableLinks(this.store, this.sessionId);
  }

  info(): TapeInfo {
    const entriesByKind: Partial<Record<Kind, number>> = {};
    // The fold rows are in memory and carry the kind: counting them reads no payload.
    const rows = this.reader.foldRows(this.sessionId, 0);
    for (const r of rows) entriesByKind[r.kind] = (entriesByKind[r.kind] ?? 0) + 1;
    return {
      sessionId: this.sessionId,
      headEntryId: this.reader.headEntryId(this.sessionId),
      entriesByKind,
      anchorCount: entriesByKind.anchor ?? 0,
      title: this.projections.view(this.sessionId, titleProjection),
    };
  }

  anchors(): TapeAnchor[] {
    const { anchors } = this.folds.view(this.sessionId, { includePending: false });
    const { anchorEntryId } = resolveSelector(anchors, { kind: 'last' });
    return anchors.map((a) => ({ entryId: a.entryId, name: a.name, inForce: a.entryId === anchorEntryId }));
  }

  handoff(name: string, summary: string, state?: JsonObject): Promise<Entry> {
    return appendHandoff(this.tape, this.sessionId, name, summary, state);
  }
}
