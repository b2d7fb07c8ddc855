import type { FileChange, FileEvent } from './fileChange';
import { fileLines, lfText } from './fileLines';
import { alignLines } from './lineAlignment';

/**
 * Each line of `current` (the file as it is now) with the origin of the event that last wrote it,
 * or null: a person's line, or one from before the tape. `events` are the file's history, oldest
 * first.
 *
 * The history is read backwards from the file as it is, because that is the one version we hold
 * whole: an agent's replace names only the text around it, so going forwards we would not know
 * where in an older file it stood. Each event is found in the file as the later events left it
 * (their changes undone one by one), the lines it wrote that are still in today's file are its
 * own, and its change is undone in turn. A line is settled by the latest event that explains it;
 * an event that cannot be placed without doubt claims only what it names uniquely and undoes
 * nothing.
 */
export function attributeLines<O>(current: string, events: readonly FileEvent<O>[]): (O | null)[] {
  const now = fileLines(current);
  const walk = new BackwardWalk<O>(now);
  for (let k = events.length - 1; k >= 0 && !walk.done; k--) walk.undo(events[k].change, events[k].origin);
  return walk.origins;
}

/** A line of the file as some event left it, and which line of today's file it still is (or -1). */
interface Slot {
  text: string;
  now: number;
}

class BackwardWalk<O> {
  readonly origins: (O | null)[];
  /** Lines of today's file whose origin is decided (an event's, or null for good). */
  private readonly settled: Uint8Array;
  /** The file just after the event being undone, so far as the later events could be undone. */
  private slots: Slot[];
  /** Nothing earlier can reach today's file: the file was written whole or deleted here. */
  done = false;
  /**
   * The slots are exactly the file after the event being undone: every later change was undone.
   * Once one could not be, text an edit wrote inside a line (not whole lines) proves nothing: the
   * change we could not place may have rewritten the rest of that line.
   */
  private exact = true;

  constructor(now: readonly string[]) {
    this.origins = new Array<O | null>(now.length).fill(null);
    this.settled = new Uint8Array(now.length);
    this.slots = now.map((text, i) => ({ text, now: i }));
  }

  undo(change: FileChange, origin: O | null): void {
    switch (change.kind) {
      case 'replace':
        return this.undoReplace(lfText(change.oldText), lfText(change.newText), change.all, origin);
      case 'written':
        return this.claimWritten(lfText(change.newText), origin);
      case 'write':
        this.reconcile(fileLines(change.content), origin, null);
        this.done = true;
        return;
      case 'known':
        this.slots = this.reconcile(fileLines(change.content), null, change.claimUnmatched ? origin : null);
        this.exact = true;
        return;
      case 'delete':
        this.done = true;
        return;
    }
  }

  private claim(slot: Slot, origin: O | null): void {
    if (slot.now < 0 || this.settled[slot.now]) return;
    this.settled[slot.now] = 1;
    this.origins[slot.now] = origin;
  }

  /**
   * The file at this event held `lines`: lines we have that it lacks were written after it, by
   * `after` (null: by nobody on the tape); lines matched to it are claimed by `matched` when given
   * (a write wrote them), else they stay open for earlier events. Returns that file's slots.
   */
  private reconcile(lines: readonly string[], matched: O | null, after: O | null): Slot[] {
    const toThen = alignLines(
      this.slots.map((s) => s.text),
      lines,
    );
    const then: Slot[] = lines.map((text) => ({ text, now: -1 }));
    this.slots.forEach((slot, i) => {
      const j = toThen[i];
      if (j === -1) this.claim(slot, after);
      else {
        if (matched !== null) this.claim(slot, matched);
        then[j].now = slot.now;
      }
    });
    return then;
  }

  private undoReplace(oldText: string, newText: string, all: boolean, origin: O | null): void {
    if (oldText === newText) return;
    // A pure deletion wrote no line, and where it was is not recorded. Taking whole lines out (its
    // text starts or ends at a line break) leaves the others as they were; taking out part of a
    // line changed that line in a way we cannot follow.
    if (newText === '') {
      if (!oldText.startsWith('\n') && !oldText.endsWith('\n')) this.exact = false;
      return;
    }
    const found = occurrencesIn(this.slots, newText, all ? Infinity : 2);
    if (found.length === 0 || (!all && found.length > 1) || found.some((o) => !this.placeable(o))) {
      this.exact = false;
      return this.claimUnique(newTextLinesWritten(oldText, newText), origin);
    }
    // From the last occurrence back, so the earlier ones keep their places.
    for (let k = found.length - 1; k >= 0; k--) this.undoAt(found[k], oldText, newText.length, origin);
  }

  /** Undoes one occurrence of the new text: the old text goes back in its place. */
  private undoAt(o: Occurrence, oldText: string, length: number, origin: O | null): void {
    const region = this.slots.slice(o.first, o.last + 1);
    const regionText = region.map((s) => s.text).join('\n') + '\n';
    const before = fileLines(regionText.slice(0, o.start) + oldText + regionText.slice(o.start + length));
    const toBefore = alignLines(
      region.map((s) => s.text),
      before,
    );
    const restored: Slot[] = before.map((line) => ({ text: line, now: -1 }));
    region.forEach((slot, i) => {
      if (toBefore[i] === -1) this.claim(slot, origin);
      else restored[toBefore[i]].now = slot.now;
    });
    this.slots.splice(o.first, region.length, ...restored);
  }

  /**
   * Text found stands for the edit when nothing since was left undone, or when it is its lines
   * whole (indentation aside): then the lines read as the edit left them.
   */
  private placeable(o: Occurrence): boolean {
    return this.exact || (/^\s*$/.test(this.slots[o.first].text.slice(0, o.start)) && /^\s*$/.test(this.slots[o.last].text.slice(o.after)));
  }

  /** Text written whose old text is unknown: claimed where it stands once, and nothing undone. */
  private claimWritten(newText: string, origin: O | null): void {
    if (newText === '') return;
    const found = occurrencesIn(this.slots, newText, 2);
    this.exact = false;
    if (found.length !== 1 || !this.placeable(found[0])) return this.claimUnique(fileLines(newText), origin);
    for (let i = found[0].first; i <= found[0].last; i++) this.claim(this.slots[i], origin);
  }

  /**
   * An edit no longer found whole (a person or a later edit changed part of it): each line it wrote
   * that occurs once in the file and once among its lines is still its own, wherever it moved, and
   * so are its neighbours from the edit (a `}`, a blank line) where they still stand beside it.
   */
  private claimUnique(written: readonly (string | null)[], origin: O | null): void {
    const inEdit = new Map<string, number>();
    for (const w of written) if (w !== null && w.trim() !== '') inEdit.set(w, (inEdit.get(w) ?? 0) + 1);
    // One pass over the file for the edit's lines alone: where each stands, and whether once.
    const at = new Map<string, number>();
    for (let i = 0; i < this.slots.length; i++) {
      const t = this.slots[i].text;
      if (inEdit.get(t) === 1) at.set(t, at.has(t) ? -1 : i);
    }
    for (let k = 0; k < written.length; k++) {
      const w = written[k];
      const i = w === null ? undefined : at.get(w);
      if (i === undefined || i === -1) continue;
      this.claim(this.slots[i], origin);
      for (let d = 1; k + d < written.length && written[k + d] !== null && this.slots[i + d]?.text === written[k + d]; d++)
        this.claim(this.slots[i + d], origin);
      for (let d = 1; k - d >= 0 && written[k - d] !== null && this.slots[i - d]?.text === written[k - d]; d++) this.claim(this.slots[i - d], origin);
    }
  }
}

/**
 * The lines of `newText` a replace wrote (null where a line was there before, as context): a
 * line-by-line comparison with `oldText`, so the context an agent repeats is not claimed.
 */
function newTextLinesWritten(oldText: string, newText: string): (string | null)[] {
  const newLines = newText.split('\n');
  const toOld = alignLines(newLines, oldText.split('\n'));
  return newLines.map((line, i) => (toOld[i] === -1 ? line : null));
}

/**
 * Where a text stands in the file the slots make (each line ending in a line feed): lines `first`
 * to `last`, from offset `start` of the first line (in the text of those lines joined) to offset
 * `after` of the last. Found line by line, so a file is never joined into one string per edit.
 */
interface Occurrence {
  first: number;
  last: number;
  start: number;
  after: number;
}

function occurrencesIn(slots: readonly Slot[], text: string, max: number): Occurrence[] {
  const parts = text.split('\n');
  const k = parts.length - 1;
  const found: Occurrence[] = [];
  if (k === 0) {
    for (let i = 0; i < slots.length && found.length < max; i++)
      for (let at = slots[i].text.indexOf(text); at !== -1 && found.length < max; at = slots[i].text.indexOf(text, at + text.length))
        found.push({ first: i, last: i, start: at, after: at + text.length });
    return found;
  }
  // Ending in a line feed, the text ends with its last whole line; else inside line first + k.
  const endsLine = parts[k] === '';
  const span = endsLine ? k - 1 : k;
  const head = parts[0];
  const mid = head.length >> 1;
  const headMid = head.charCodeAt(mid);
  const headStart = head.charCodeAt(0);
  for (let i = 0; i + span < slots.length && found.length < max; i++) {
    // A line's own characters where the text's first and middle would stand refuse most lines
    // before any string comparison (code lines share their ends: `;`, `{`, indentation).
    const line = slots[i].text;
    const from = line.length - head.length;
    if (head !== '' && (from < 0 || line.charCodeAt(from + mid) !== headMid || line.charCodeAt(from) !== headStart)) continue;
    let j = 1;
    while (j < k && slots[i + j].text === parts[j]) j++;
    if (j < k || !line.endsWith(head) || (!endsLine && !slots[i + k].text.startsWith(parts[k]))) continue;
    found.push({ first: i, last: i + span, start: slots[i].text.length - parts[0].length, after: endsLine ? slots[i + span].text.length : parts[k].length });
    i += span;
  }
  return found;
}
