import type { AnchorAmendments } from './anchorFold';
import { pinData, summaryEditData, textOf, type Entry } from './entry';

/**
 * What a compaction's amendments add to the context after its checkpoint (anchorFold.ts): the
 * edited summary in force, the facts pinned (one message) and each pinned entry (one message
 * each, in pin order), verbatim under a header saying where it comes from.
 */

export interface PinnedText {
  /** The pinned entry, or null for the message of pinned facts. */
  entryId: number | null;
  content: string;
}

type Load = (entryId: number) => Entry | undefined;

/** The summary of the last `compaction/summary-edit`, or undefined when there is none (or it is unreadable). */
export function editedSummaryOf(amendments: AnchorAmendments | undefined, load: Load): string | undefined {
  if (amendments?.summaryEntryId == null) return undefined;
  const r = summaryEditData.safeParse(load(amendments.summaryEntryId)?.payload.data);
  return r.success ? r.data.summary : undefined;
}

function entryText(e: Entry): string {
  const p = e.payload;
  switch (e.kind) {
    case 'message':
    case 'system':
      return textOf(p.content);
    case 'tool_call':
      return `${e.name} ${textOf(p.input ?? null)}`;
    case 'tool_result':
      return textOf(p.output);
    case 'error':
      return textOf(p.message);
    default:
      return textOf(p);
  }
}

export interface Pinned {
  /** Each fact once, in pin order. */
  facts: { kind: string; value: string }[];
  /** Each entry id once, in pin order, with the first pin naming it. */
  entries: { entryId: number; pinId: number }[];
}

/** What the pins of an anchor name; a pin that does not read names nothing. */
export function pinnedOf(amendments: AnchorAmendments | undefined, load: Load): Pinned {
  const facts = new Map<string, { kind: string; value: string }>();
  const entries = new Map<number, number>();
  for (const pinId of amendments?.pins ?? []) {
    const r = pinData.safeParse(load(pinId)?.payload.data);
    if (!r.success) continue;
    for (const f of r.data.facts ?? []) if (!facts.has(`${f.kind}\u0000${f.value}`)) facts.set(`${f.kind}\u0000${f.value}`, { kind: f.kind, value: f.value });
    for (const id of r.data.entryIds ?? []) if (!entries.has(id)) entries.set(id, pinId);
  }
  return { facts: [...facts.values()], entries: [...entries].map(([entryId, pinId]) => ({ entryId, pinId })) };
}

/**
 * The pinned facts and entries, deduplicated. An entry is left out when the context already shows
 * it after the cursor (`shown`), when it is not before the pin, or when the view has no such entry:
 * a pin from a hostile file cannot make a context fail or repeat an entry.
 */
export function pinnedTexts(amendments: AnchorAmendments | undefined, shown: ReadonlySet<number>, load: Load): PinnedText[] {
  const pinned = pinnedOf(amendments, load);
  const entries = new Map<number, Entry>();
  for (const { entryId: id, pinId } of pinned.entries) {
    if (id >= pinId || shown.has(id)) continue;
    const e = load(id);
    if (e !== undefined) entries.set(id, e);
  }
  const out: PinnedText[] = [];
  if (pinned.facts.length > 0)
    out.push({
      entryId: null,
      content: `[Pinned by the user: facts from before the checkpoint]\n${pinned.facts.map((f) => `- ${f.kind}: ${f.value}`).join('\n')}`,
    });
  for (const [id, e] of entries)
    out.push({ entryId: id, content: `[Pinned by the user: entry ${id} (${e.kind} ${e.name}), from before the checkpoint]\n${entryText(e)}` });
  return out;
}
