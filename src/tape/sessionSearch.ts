import type { Entry, Kind } from './entry';
import { foldAll, type FoldRow } from './fold';
import { isSearchable, searchableText } from './searchableText';
import { Postings, type PostingsCursor } from './searchPostings';
import { snippetOf, type Snippet } from './searchSnippet';
import { forEachToken, queryTerms, searchTokens, type SearchToken } from './searchTokens';

/**
 * Search All Sessions (issue 22): a ranked search over the conversations of every session of a
 * tape, in memory, built on first use and then kept up to date with what is appended.
 *
 * **What is indexed.** Per session, what its transcript says: user and assistant messages in the
 * version in force (a revised message counts with its last admitted text, as the fold of its
 * message rows gives it, pending versions included as the inspector shows them; a retracted
 * message still counts: the transcript shows it, marked), each tool call (name and input as text)
 * and tool result (output) in its latest version (a crash-repair stand-in never replacing a
 * recorded result), compaction summaries (the anchors and the user's summary edits) and handoff
 * notes (`searchableText.ts`). A session's own stored entries only: a fork's inherited entries are
 * found in its parent, once. At most the first 16 KiB of an entry's text is indexed.
 *
 * **Tokens** (`searchTokens.ts`): Unicode words, NFKC and case-folded; CJK runs as overlapping
 * bigrams and single characters.
 *
 * **Matching and ranking.** Plain text: every query term must occur in a hit (AND); with
 * `prefix`, the query's last word also matches the words it begins (search as you type). Hits are
 * ranked by Okapi BM25 (k1 = 1.2, b = 0.75, idf = ln((N − df + 0.5) / (df + 0.5) + 1), N and df
 * over the indexed entries, length in words and bigrams), times 1.5 when the query's words occur
 * in the entry consecutively and in order (the phrase bonus, judged on the 64 best by BM25, or 4 ×
 * the limit when more). Equal scores: the newer entry first, then by session id and entry id, so
 * the order is a function of the tape alone. At equal length, more occurrences rank higher.
 *
 * **Incremental.** The tape is append-only: per session the index keeps the last entry it read and
 * reads only the fold rows after it (and the rows of the messages those touch) on the next query.
 * A revision replaces its message's entry in the index (the old one's terms are taken out of the
 * statistics, so a grown index scores as a fresh one). Known sessions are checked by their heads
 * at each query; a new session is learnt from the store's append announcement, which comes when
 * the store commits (within a few milliseconds of the append), so a session begun just before a
 * query is found from the next one on. A change of the source's generation (a reload, a deleted
 * session) rebuilds the index.
 *
 * **Memory.** Per term its postings (searchPostings.ts: a plain array while short, varint bytes
 * once long), per entry 21 bytes in typed arrays and the key of its message or call; no text is
 * kept: snippets are cut from the entries read again for the best hits. Measured: 90 MiB of heap
 * for 90,000 entries of about 680 bytes of prose each (bench/sessionSearch.bench.ts).
 */

/** What the index reads: a TapeStore is one. */
export interface SearchSource {
  /** Changes when rows already read may no longer be what the source holds (a reload, a delete). */
  generation(): number;
  sessions(): readonly { sessionId: string }[];
  headEntryId(sessionId: string): number;
  foldRows(sessionId: string, afterEntryId: number): readonly FoldRow[];
  getEntry(sessionId: string, entryId: number): Entry | undefined;
  /**
   * When the source tells of appends, `sessions()` (a scan of the tape) is read only once: new
   * sessions are learnt from the announcements, known ones from their heads.
   */
  onDidAppend?(listener: (e: { sessionId: string }) => void): { dispose(): void };
}

/** What a hit's session is, as its host knows it (the agent from its ingest format, the title its views show). */
export interface SessionFacts {
  agentOf(sessionId: string): string;
  titleOf(sessionId: string): string | null;
}

export interface SessionSearchOptions {
  /** Only sessions of these agents (agent ids, `agentOf`); all when absent or empty. */
  agents?: readonly string[];
  /** Inclusive bounds on the entry's `createdAt`, ms since the epoch. */
  from?: number;
  to?: number;
  /** At most this many hits (default 50, at most 1,000). */
  limit?: number;
  /** The query's last word also matches the longer words it begins. */
  prefix?: boolean;
}

export interface SessionSearchHit {
  sessionId: string;
  /** As the session stores it (a fork's own entries are numbered from its `session/start`). */
  entryId: number;
  kind: Kind;
  name: string;
  score: number;
  snippet: Snippet;
  createdAt: number;
  agent: string;
  title: string | null;
  /** The session's first entry's time. */
  sessionStartedAt: number;
}

export interface SessionSearchResult {
  hits: SessionSearchHit[];
  /** Entries matching the query and filters, of which `hits` are the best. */
  total: number;
}

const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 1000;
const K1 = 1.2;
const B = 0.75;
const PHRASE_BONUS = 1.5;
const RERANKED = 64;
/** A prefix stands for at most this many words, the most frequent: a one-letter prefix would name the vocabulary. */
const MAX_EXPANSIONS = 64;

function grow<T extends Int32Array | Uint8Array | Float64Array>(a: T, need: number, make: (n: number) => T): T {
  if (need <= a.length) return a;
  const b = make(Math.max(need, a.length * 2));
  b.set(a);
  return b;
}

interface Keyed {
  doc: number;
  entryId: number;
  /** A crash-repair stand-in result, which a recorded one replaces and which never replaces one. */
  interrupted: boolean;
}

interface IndexedSession {
  sessionId: string;
  /** Its number in `sessionOf`. */
  index: number;
  head: number;
  agent: string;
  startedAt: number;
  /** The entry indexed for each message (`m`), call (`c`) and result (`r`) key. */
  keyed: Map<string, Keyed>;
}

/** A query term as matched: the term itself, or for a prefix the words it begins. */
interface Slot {
  alternatives: Postings[];
  /** Sum of their postings' lengths: the slot with the fewest drives the scan. */
  size: number;
}

type Candidate = { doc: number; score: number };

const keyOfRow = (r: FoldRow): string => `${r.kind === 'tool_call' ? 'c' : 'r'}\u0000${r.messageId}\u0000${r.toolCallId}`;

/** Term counts of a text, and its length in words and bigrams. */
function countsOf(text: string): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  let length = 0;
  forEachToken(text, (term, _start, _end, inSequence) => {
    counts.set(term, (counts.get(term) ?? 0) + 1);
    if (inSequence) length++;
  });
  return { counts, length };
}

/** Whether `sequence` occurs in the tokens consecutively; `last` matches a token it begins when prefixing. */
function hasPhrase(tokens: readonly SearchToken[], sequence: readonly string[], prefix: boolean): boolean {
  if (sequence.length < 2) return false;
  const seq = tokens.filter((t) => t.inSequence).map((t) => t.term);
  const matches = (i: number, j: number): boolean => (prefix && j === sequence.length - 1 ? seq[i + j].startsWith(sequence[j]) : seq[i + j] === sequence[j]);
  for (let i = 0; i + sequence.length <= seq.length; i++) {
    let j = 0;
    while (j < sequence.length && matches(i, j)) j++;
    if (j === sequence.length) return true;
  }
  return false;
}

export class SessionSearch {
  private generation: number | undefined;
  private sessions = new Map<string, IndexedSession>();
  private sessionOf: IndexedSession[] = [];
  private terms = new Map<string, Postings>();
  private docCount = 0;
  private docSession = new Int32Array(1024);
  private docEntry = new Int32Array(1024);
  private docLength = new Int32Array(1024);
  private docCreated = new Float64Array(1024);
  private docAlive = new Uint8Array(1024);
  private liveDocs = 0;
  private totalLength = 0;
  private readonly dirty = new Set<string>();
  private readonly subscription: { dispose(): void } | undefined;

  constructor(
    private readonly source: SearchSource,
    private readonly facts: SessionFacts,
  ) {
    this.subscription = source.onDidAppend?.((e) => this.dirty.add(e.sessionId));
  }

  /** The agents of the tape's sessions, with how many sessions each, most sessions first. */
  agents(): { agent: string; sessions: number }[] {
    this.refresh();
    const counts = new Map<string, number>();
    for (const s of this.sessionOf) counts.set(s.agent, (counts.get(s.agent) ?? 0) + 1);
    return [...counts].map(([agent, sessions]) => ({ agent, sessions })).sort((a, b) => b.sessions - a.sessions || a.agent.localeCompare(b.agent));
  }

  /** How many entries are indexed (live), for the benchmark and tests. */
  get size(): number {
    this.refresh();
    return this.liveDocs;
  }

  search(query: string, options: SessionSearchOptions = {}): SessionSearchResult {
    const limit = options.limit ?? DEFAULT_LIMIT;
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new RangeError(`limit must be an integer from 1 to ${MAX_LIMIT}, got ${limit}`);
    this.refresh();
    const { terms, sequence, lastWord } = queryTerms(query);
    if (terms.length === 0) return { hits: [], total: 0 };
    const prefix = options.prefix === true && lastWord !== null;
    const slots = this.slotsOf(terms, prefix ? lastWord : null);
    if (slots === null) return { hits: [], total: 0 };

    const agents = options.agents?.length ? new Set(options.agents) : null;
    const from = options.from ?? -Infinity;
    const to = options.to ?? Infinity;
    const avgLength = this.liveDocs === 0 ? 1 : this.totalLength / this.liveDocs;
    const idf = (df: number): number => Math.log((this.liveDocs - df + 0.5) / (df + 0.5) + 1);
    const termScore = (tf: number, df: number, doc: number): number => (idf(df) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.docLength[doc]) / avgLength));

    const window = Math.max(RERANKED, 4 * limit);
    const best: Candidate[] = [];
    let floor = -Infinity;
    let total = 0;
    const driver = slots.reduce((a, b) => (b.size < a.size ? b : a));
    const cursors = slots.map((slot) => slot.alternatives.map((p) => p.cursor()));
    for (const doc of this.docsOf(driver)) {
      if (this.docAlive[doc] === 0) continue;
      const created = this.docCreated[doc];
      if (created < from || created > to) continue;
      if (agents !== null && !agents.has(this.sessionOf[this.docSession[doc]].agent)) continue;
      let score = 0;
      let all = true;
      for (let i = 0; i < slots.length; i++) {
        let s = 0;
        const alternatives = slots[i].alternatives;
        for (let j = 0; j < alternatives.length; j++) {
          const tf = cursors[i][j].seek(doc);
          if (tf > 0) s = Math.max(s, termScore(tf, alternatives[j].df, doc));
        }
        if (s === 0) {
          all = false;
          break;
        }
        score += s;
      }
      if (!all) continue;
      total++;
      if (score < floor) continue;
      best.push({ doc, score });
      if (best.length >= 2 * window) floor = this.trim(best, window);
    }
    this.trim(best, window);

    const hit = prefix ? (t: string): boolean => terms.includes(t) || t.startsWith(lastWord) : (t: string): boolean => terms.includes(t);
    const read = best.flatMap((c) => {
      const s = this.sessionOf[this.docSession[c.doc]];
      const entry = this.source.getEntry(s.sessionId, this.docEntry[c.doc]);
      if (entry === undefined) return [];
      const text = searchableText(entry);
      const tokens = searchTokens(text);
      return [{ ...c, score: hasPhrase(tokens, sequence, prefix) ? c.score * PHRASE_BONUS : c.score, entry, text, tokens, session: s }];
    });
    read.sort((a, b) => b.score - a.score || this.order(a.doc, b.doc));
    return {
      total,
      hits: read.slice(0, limit).map(({ entry, text, tokens, score, session }) => ({
        sessionId: session.sessionId,
        entryId: entry.entryId,
        kind: entry.kind,
        name: entry.name,
        score: Math.round(score * 1e4) / 1e4,
        snippet: snippetOf(text, tokens, hit),
        createdAt: entry.createdAt,
        agent: session.agent,
        title: this.facts.titleOf(session.sessionId),
        sessionStartedAt: session.startedAt,
      })),
    };
  }

  dispose(): void {
    this.subscription?.dispose();
  }

  // ---- ranking ----

  /** Newer first, then session id and entry id: ties are ordered by the tape, not by when the index read them. */
  private order(a: number, b: number): number {
    const created = this.docCreated[b] - this.docCreated[a];
    if (created !== 0) return created;
    const sa = this.sessionOf[this.docSession[a]].sessionId;
    const sb = this.sessionOf[this.docSession[b]].sessionId;
    return sa < sb ? -1 : sa > sb ? 1 : this.docEntry[a] - this.docEntry[b];
  }

  /** Keeps the `n` best candidates (sorted); returns the score a candidate must reach to matter. */
  private trim(best: Candidate[], n: number): number {
    best.sort((a, b) => b.score - a.score || this.order(a.doc, b.doc));
    if (best.length > n) best.length = n;
    return best.length < n ? -Infinity : best[n - 1].score;
  }

  private slotsOf(terms: readonly string[], lastWord: string | null): Slot[] | null {
    const slots: Slot[] = [];
    for (const term of terms) {
      if (term === lastWord) continue;
      const p = this.terms.get(term);
      if (p === undefined || p.df === 0) return null;
      slots.push({ alternatives: [p], size: p.length });
    }
    if (lastWord !== null) {
      const alternatives = [...this.terms]
        .filter(([t, p]) => p.df > 0 && t.startsWith(lastWord))
        .sort((a, b) => b[1].df - a[1].df || (a[0] < b[0] ? -1 : 1))
        .slice(0, MAX_EXPANSIONS)
        .map(([, p]) => p);
      if (alternatives.length === 0) return null;
      slots.push({ alternatives, size: alternatives.reduce((n, p) => n + p.length, 0) });
    }
    return slots;
  }

  /** The documents of a slot, ascending, each once. */
  private docsOf(slot: Slot): number[] {
    const docs: number[] = [];
    for (const p of slot.alternatives) for (const c: PostingsCursor = p.cursor(); c.next();) docs.push(c.doc);
    if (slot.alternatives.length === 1) return docs;
    docs.sort((a, b) => a - b);
    return docs.filter((d, i) => i === 0 || docs[i - 1] !== d);
  }

  // ---- indexing ----

  /** Reads what was appended since the last query; everything again when the source changed under it. */
  private refresh(): void {
    const generation = this.source.generation();
    let ids: Iterable<string>;
    if (generation !== this.generation) {
      this.reset(generation);
      ids = this.source.sessions().map((s) => s.sessionId);
    } else if (this.subscription !== undefined) {
      // Heads are cheap to ask for (the store keeps them): a known session's appends are seen at
      // once, before the store announces them at its commit; a new one from its announcement.
      ids = new Set([...this.sessions.keys(), ...this.dirty]);
    } else {
      ids = this.source.sessions().map((s) => s.sessionId);
    }
    this.dirty.clear();
    for (const id of ids) {
      const s = this.sessions.get(id);
      // Fewer entries than were read: not the tape that was indexed, whatever its generation says.
      if (s !== undefined && this.source.headEntryId(id) < s.head) {
        this.generation = undefined;
        return this.refresh();
      }
    }
    for (const id of ids) this.catchUp(id);
  }

  private reset(generation: number): void {
    this.generation = generation;
    this.sessions = new Map();
    this.sessionOf = [];
    this.terms = new Map();
    this.docCount = 0;
    this.liveDocs = 0;
    this.totalLength = 0;
    this.dirty.clear();
  }

  private catchUp(sessionId: string): void {
    const head = this.source.headEntryId(sessionId);
    let s = this.sessions.get(sessionId);
    if (s === undefined) {
      if (head === 0) return;
      s = {
        sessionId,
        index: this.sessionOf.length,
        head: 0,
        agent: this.facts.agentOf(sessionId),
        startedAt: this.source.getEntry(sessionId, 1)?.createdAt ?? 0,
        keyed: new Map(),
      };
      this.sessions.set(sessionId, s);
      this.sessionOf.push(s);
    }
    if (head <= s.head) return;
    // An older tape tells an ingested session by keys that may come after its first entries.
    s.agent = this.facts.agentOf(sessionId);
    const rows = this.source.foldRows(sessionId, s.head);
    const touched = new Set<string>();
    for (const r of rows) {
      if (!isSearchable(r)) continue;
      if (r.kind === 'message') {
        if (r.messageId !== null) touched.add(r.messageId);
      } else if (r.kind === 'tool_call' || r.kind === 'tool_result') {
        if (r.messageId !== null && r.toolCallId !== null) this.place(s, keyOfRow(r), r.entryId, r.interrupted);
      } else this.addDoc(s, r.entryId);
    }
    if (touched.size > 0) {
      // A message's version in force depends on its own rows only: fold just those.
      const all = s.head === 0 ? rows : this.source.foldRows(sessionId, 0);
      const mine = all.filter((r) => r.kind === 'message' && r.messageId !== null && touched.has(r.messageId));
      for (const m of foldAll(mine, { includePending: true }).messages) this.place(s, `m\u0000${m.messageId}`, m.entryId, false);
    }
    s.head = rows.at(-1)?.entryId ?? head;
  }

  /** Indexes `entryId` as what `key` says, replacing the entry indexed for it before. */
  private place(s: IndexedSession, key: string, entryId: number, interrupted: boolean): void {
    const old = s.keyed.get(key);
    if (old?.entryId === entryId) return;
    if (old !== undefined && interrupted && !old.interrupted) return;
    if (old !== undefined) this.removeDoc(old.doc);
    s.keyed.set(key, { doc: this.addDoc(s, entryId), entryId, interrupted });
  }

  /** The new document's number, or -1 when the entry has no words (or is missing). */
  private addDoc(s: IndexedSession, entryId: number): number {
    const entry = this.source.getEntry(s.sessionId, entryId);
    if (entry === undefined) return -1;
    const { counts, length } = countsOf(searchableText(entry));
    if (counts.size === 0) return -1;
    const doc = this.docCount++;
    this.docSession = grow(this.docSession, doc + 1, (n) => new Int32Array(n));
    this.docEntry = grow(this.docEntry, doc + 1, (n) => new Int32Array(n));
    this.docLength = grow(this.docLength, doc + 1, (n) => new Int32Array(n));
    this.docCreated = grow(this.docCreated, doc + 1, (n) => new Float64Array(n));
    this.docAlive = grow(this.docAlive, doc + 1, (n) => new Uint8Array(n));
    this.docSession[doc] = s.index;
    this.docEntry[doc] = entryId;
    this.docLength[doc] = length;
    this.docCreated[doc] = entry.createdAt;
    this.docAlive[doc] = 1;
    this.liveDocs++;
    this.totalLength += length;
    for (const [term, tf] of counts) {
      const p = this.terms.get(term);
      if (p === undefined) this.terms.set(term, new Postings(doc, tf));
      else p.add(doc, tf);
    }
    return doc;
  }

  /** Takes a replaced entry out: its terms are read again from the tape (append-only, so unchanged) to correct the statistics. */
  private removeDoc(doc: number): void {
    if (doc < 0 || this.docAlive[doc] === 0) return;
    const s = this.sessionOf[this.docSession[doc]];
    const entry = this.source.getEntry(s.sessionId, this.docEntry[doc]);
    this.docAlive[doc] = 0;
    this.liveDocs--;
    this.totalLength -= this.docLength[doc];
    if (entry === undefined) return;
    for (const term of countsOf(searchableText(entry)).counts.keys()) {
      const p = this.terms.get(term);
      if (p !== undefined) p.df--;
    }
  }
}

const indexes = new WeakMap<SearchSource, SessionSearch>();

/** The index of a source, kept with it (built on its first query): every caller on one store shares it. */
export function sessionSearchOf(source: SearchSource, facts: SessionFacts): SessionSearch {
  let index = indexes.get(source);
  if (index === undefined) indexes.set(source, (index = new SessionSearch(source, facts)));
  return index;
}
