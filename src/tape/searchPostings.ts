/**
 * One term's postings in the Search All Sessions index: the documents (numbers, ascending, as they
 * were indexed) that hold the term, each with how often. Most terms are in one document or a few
 * (identifiers, numbers, paths), a few in most: a short list is a plain array of `doc * 2^16 + tf`,
 * which costs little more than its numbers; past `SMALL` entries the list becomes bytes, each entry
 * the distance from the previous document and the count as varints (two bytes for a common
 * word's entry instead of eight). The list is read front to back by a cursor, as a query walks its
 * documents in ascending order.
 */

const TF_SPAN = 0x10000;
/** Counts beyond this are this. */
export const MAX_TF = TF_SPAN - 1;
const SMALL = 32;

export class Postings {
  /** The entries while there are at most SMALL, each `doc * TF_SPAN + tf`; null once they are bytes. */
  small: number[] | null;
  bytes: Uint8Array | null = null;
  /** How many of `bytes` are written. */
  used = 0;
  length = 1;
  /** Live documents with the term: a replaced entry's stay in the list, and the index skips them. */
  df = 1;
  private lastDoc: number;

  constructor(doc: number, tf: number) {
    this.small = [doc * TF_SPAN + Math.min(tf, MAX_TF)];
    this.lastDoc = doc;
  }

  /** Adds `doc`, which must be above every document already in the list. */
  add(doc: number, tf: number): void {
    const count = Math.min(tf, MAX_TF);
    this.length++;
    this.df++;
    if (this.small !== null && this.small.length < SMALL) {
      this.small.push(doc * TF_SPAN + count);
      this.lastDoc = doc;
      return;
    }
    if (this.small !== null) {
      const entries = this.small;
      this.small = null;
      this.bytes = new Uint8Array(SMALL * 4);
      let previous = -1;
      for (const v of entries) {
        const d = Math.floor(v / TF_SPAN);
        this.varint(d - previous);
        this.varint(v - d * TF_SPAN);
        previous = d;
      }
    }
    this.varint(doc - this.lastDoc);
    this.varint(count);
    this.lastDoc = doc;
  }

  cursor(): PostingsCursor {
    return new PostingsCursor(this);
  }

  private varint(n: number): void {
    for (; n >= 0x80; n = Math.floor(n / 0x80)) this.byte((n % 0x80) | 0x80);
    this.byte(n);
  }

  private byte(b: number): void {
    let bytes = this.bytes as Uint8Array;
    if (this.used === bytes.length) {
      const grown = new Uint8Array(bytes.length * 2);
      grown.set(bytes);
      this.bytes = bytes = grown;
    }
    bytes[this.used++] = b;
  }
}

/** Reads a list in order: `next` moves to the following entry, `seek` to the first at or after a document. */
export class PostingsCursor {
  doc = -1;
  tf = 0;
  private at = 0;

  constructor(private readonly p: Postings) {}

  next(): boolean {
    const small = this.p.small;
    if (small !== null) {
      if (this.at >= small.length) return this.end();
      const v = small[this.at++];
      this.doc = Math.floor(v / TF_SPAN);
      this.tf = v - this.doc * TF_SPAN;
      return true;
    }
    if (this.at >= this.p.used) return this.end();
    this.doc += this.varint();
    this.tf = this.varint();
    return true;
  }

  /** The count of `doc` in the list, 0 when it is not there; `doc` must not be below the last one asked for. */
  seek(doc: number): number {
    while (this.doc < doc) if (!this.next()) return 0;
    return this.doc === doc ? this.tf : 0;
  }

  private end(): false {
    this.doc = Infinity;
    return false;
  }

  private varint(): number {
    const bytes = this.p.bytes as Uint8Array;
    let n = 0;
    for (let scale = 1; ; scale *= 0x80) {
      const b = bytes[this.at++];
      n += (b & 0x7f) * scale;
      if (b < 0x80) return n;
    }
  }
}
