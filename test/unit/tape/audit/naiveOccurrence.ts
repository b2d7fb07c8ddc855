/**
 * The compaction audit's matching as it was before the summary was indexed (a scan of the summary
 * per fact): the reference the SubstringIndex is checked against, and the baseline of its benchmark.
 */
const WORD = /[\p{L}\p{N}_]/u;

export function naiveOccursAsWord(hay: string, needle: string): boolean {
  if (needle === '') return false;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) {
    const before = i === 0 ? '' : hay[i - 1];
    const after = hay[i + needle.length] ?? '';
    if (!WORD.test(before) && !WORD.test(after)) return true;
  }
  return false;
}
