/**
 * How alike two answers' texts are, for an evaluation (`token-multiset-jaccard/1`): both texts are
 * NFKC-normalised and lower-cased and cut into tokens (runs of letters, digits and `_`; each Han,
 * Hiragana, Katakana or Hangul character a token of its own, as the search index cuts them), and
 * the similarity is the weighted Jaccard index of the two token multisets: the sum over tokens of
 * the smaller count divided by the sum of the larger. 1 for the same words in any order and
 * spacing, 0 for no word in common; two empty texts are 1. Word order is ignored on purpose: a
 * sampled answer that says the same thing in another order should score high, and the measure is
 * linear in the texts' length (an edit distance is quadratic on long answers).
 */

const TOKEN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|[\p{L}\p{N}_]+/gu;

function tokenCounts(text: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [token] of text.normalize('NFKC').toLowerCase().matchAll(TOKEN)) counts.set(token, (counts.get(token) ?? 0) + 1);
  return counts;
}

export function textSimilarity(a: string, b: string): number {
  const x = tokenCounts(a);
  const y = tokenCounts(b);
  let shared = 0;
  let total = 0;
  for (const [token, n] of x) {
    const m = y.get(token) ?? 0;
    shared += Math.min(n, m);
    total += Math.max(n, m);
  }
  for (const [token, m] of y) if (!x.has(token)) total += m;
  return total === 0 ? 1 : shared / total;
}
