import type { CompactionNotice } from '../../agent/turnEvent';
import { ALSO_IN_RANGE_MAX_FACTS } from '../../tape/audit/alsoInRange';
import type { FactKind } from '../../tape/audit/compactionAudit';
import { codeSpan } from '../tools/markdownCode';

/**
 * The kinds the notice counts, in the order it names them, with their nouns. Tool names are left
 * out: the anchor's "also in this range" list does not carry them (alsoInRange.ts), so the count
 * of what the model is given back would not add up with them.
 */
const KINDS: readonly { kind: Exclude<FactKind, 'tool'>; one: string; many: string }[] = [
  { kind: 'path', one: 'file', many: 'files' },
  { kind: 'command', one: 'command', many: 'commands' },
  { kind: 'error', one: 'error', many: 'errors' },
  { kind: 'request', one: 'request', many: 'requests' },
];

/**
 * What the chat says after a compaction (issue 20), automatic or `/compact`: where the next
 * request starts, and what the summary kept of each kind of fact of the range it replaced. What it
 * left out is not lost to the model: the anchor lists it after the summary (at most
 * ALSO_IN_RANGE_MAX_FACTS, errors first), and the sentence says so. For the chat's Markdown the
 * anchor's name, the tape's, goes in a code span (the default); a plain-text message (the palette
 * command's) passes it as it is. The rest is numbers and our own words.
 */
export function compactionSentence(c: CompactionNotice, anchorName: (name: string) => string = codeSpan): string {
  const start = `Compacted: the next request starts from the summary anchor ${anchorName(c.anchorName)} (entry #${c.anchorEntryId}); nothing was deleted.`;
  const counted = KINDS.map((k) => ({ ...k, ...c.totals[k.kind] })).filter((k) => k.facts > 0);
  if (counted.length === 0) return `${start} The range it replaced names no files, commands, errors or requests to check its summary against.`;
  const kept = counted.map((k) => `${num(k.inSummary)} of ${num(k.facts)} ${k.facts === 1 ? k.one : k.many}`).join(', ');
  const missed = counted.reduce((n, k) => n + k.facts - k.inSummary, 0);
  return `${start} The summary keeps ${kept}; ${leftOut(missed)}`;
}

function leftOut(missed: number): string {
  if (missed === 0) return 'it left nothing out.';
  if (missed === 1) return 'the one it left out is listed for the model after it.';
  if (missed <= ALSO_IN_RANGE_MAX_FACTS) return `the ${num(missed)} it left out are listed for the model after it.`;
  return `${ALSO_IN_RANGE_MAX_FACTS} of the ${num(missed)} it left out are listed for the model after it (errors first, then commands, files and requests).`;
}

const num = (n: number): string => n.toLocaleString('en-US');
