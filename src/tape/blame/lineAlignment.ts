/**
 * Which line of `b` each line of `a` is, or -1: a patience alignment (common ends, then lines that
 * occur once on each side, in their longest common order, recursively between them), a plain LCS
 * only where a stretch without such lines is small, then moves: a line left over on both sides that
 * occurs once in each file is the same line moved. Lines that occur several times (`}`, blank lines)
 * are matched only in order between placed neighbours, never across the file: no guesses.
 */
export function alignLines(a: readonly string[], b: readonly string[]): Int32Array {
  const toB = new Int32Array(a.length).fill(-1);
  const matchedB = new Uint8Array(b.length);
  const match = (i: number, j: number): void => {
    toB[i] = j;
    matchedB[j] = 1;
  };
  const stack: [number, number, number, number][] = [[0, a.length, 0, b.length]];
  while (stack.length > 0) {
    let [alo, ahi, blo, bhi] = stack.pop()!;
    while (alo < ahi && blo < bhi && a[alo] === b[blo]) match(alo++, blo++);
    while (alo < ahi && blo < bhi && a[ahi - 1] === b[bhi - 1]) match(--ahi, --bhi);
    if (alo === ahi || blo === bhi) continue;
    const anchors = uniqueAnchors(a, alo, ahi, b, blo, bhi);
    if (anchors.length > 0) {
      let pa = alo;
      let pb = blo;
      for (const [i, j] of anchors) {
        match(i, j);
        stack.push([pa, i, pb, j]);
        pa = i + 1;
        pb = j + 1;
      }
      stack.push([pa, ahi, pb, bhi]);
    } else if ((ahi - alo) * (bhi - blo) <= SMALL_LCS_CELLS) {
      for (const [i, j] of lcs(a, alo, ahi, b, blo, bhi)) match(i, j);
    }
  }
  matchMoves(a, b, toB, matchedB);
  return toB;
}

/** A stretch with no line unique to both sides is aligned by a full LCS only up to this size. */
const SMALL_LCS_CELLS = 40_000;

interface Seen {
  countA: number;
  countB: number;
  atA: number;
  atB: number;
}

/** Lines occurring once in each range, paired, in the longest order both sides agree on. */
function uniqueAnchors(a: readonly string[], alo: number, ahi: number, b: readonly string[], blo: number, bhi: number): [number, number][] {
  const seen = new Map<string, Seen>();
  for (let i = alo; i < ahi; i++) {
    const s = seen.get(a[i]);
    if (s) s.countA++;
    else seen.set(a[i], { countA: 1, countB: 0, atA: i, atB: -1 });
  }
  for (let j = blo; j < bhi; j++) {
    const s = seen.get(b[j]);
    if (!s) continue;
    s.countB++;
    s.atB = j;
  }
  const pairs: [number, number][] = [];
  for (let i = alo; i < ahi; i++) {
    const s = seen.get(a[i])!;
    if (s.countA === 1 && s.countB === 1) pairs.push([i, s.atB]);
  }
  return longestIncreasing(pairs);
}

/** The longest run of pairs (already in `a` order) whose `b` positions increase (patience sorting). */
function longestIncreasing(pairs: readonly [number, number][]): [number, number][] {
  const tails: number[] = [];
  const back = new Int32Array(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    const j = pairs[k][1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < j) lo = mid + 1;
      else hi = mid;
    }
    back[k] = lo > 0 ? tails[lo - 1] : -1;
    tails[lo] = k;
  }
  const out: [number, number][] = [];
  for (let k = tails.length > 0 ? tails[tails.length - 1] : -1; k >= 0; k = back[k]) out.push(pairs[k]);
  return out.reverse();
}

/** A longest common subsequence of two small ranges, as index pairs in order. */
function lcs(a: readonly string[], alo: number, ahi: number, b: readonly string[], blo: number, bhi: number): [number, number][] {
  const n = ahi - alo;
  const m = bhi - blo;
  const len = new Uint16Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      len[i * (m + 1) + j] = a[alo + i] === b[blo + j] ? len[(i + 1) * (m + 1) + j + 1] + 1 : Math.max(len[(i + 1) * (m + 1) + j], len[i * (m + 1) + j + 1]);
  const out: [number, number][] = [];
  for (let i = 0, j = 0; i < n && j < m;) {
    if (a[alo + i] === b[blo + j]) out.push([alo + i++, blo + j++]);
    else if (len[(i + 1) * (m + 1) + j] >= len[i * (m + 1) + j + 1]) i++;
    else j++;
  }
  return out;
}

/** Pairs lines left over on both sides whose text occurs exactly once in each whole file. */
function matchMoves(a: readonly string[], b: readonly string[], toB: Int32Array, matchedB: Uint8Array): void {
  const once = (lines: readonly string[]): Map<string, number> => {
    const at = new Map<string, number>();
    for (let i = 0; i < lines.length; i++) at.set(lines[i], at.has(lines[i]) ? -1 : i);
    return at;
  };
  const inA = once(a);
  const inB = once(b);
  for (let i = 0; i < a.length; i++) {
    if (toB[i] !== -1 || inA.get(a[i]) !== i) continue;
    const j = inB.get(a[i]);
    if (j !== undefined && j !== -1 && matchedB[j] === 0) {
      toB[i] = j;
      matchedB[j] = 1;
    }
  }
}
