import type { Kind } from '../tape/entry';

/**
 * Where a replay stops when it runs (continue, reverse continue). Line breakpoints are entry ids of
 * one session (its replay document shows entry n on line n); function breakpoints are patterns over
 * entry kinds and names: `anchor` or `error` (a kind), `view/assembled` (a name), `handoff/*` (a
 * name prefix).
 */
export class ReplayBreakpoints {
  private readonly lines = new Map<string, Set<number>>();
  private patterns: readonly string[] = [];

  /** Replaces the line breakpoints of one session. */
  setLines(sessionId: string, entryIds: readonly number[]): void {
    if (entryIds.length === 0) this.lines.delete(sessionId);
    else this.lines.set(sessionId, new Set(entryIds));
  }

  /** Replaces the function breakpoints; returns, per pattern, why it is refused, or null when it is kept. */
  setPatterns(patterns: readonly string[]): (string | null)[] {
    const problems = patterns.map(patternProblem);
    this.patterns = patterns.filter((_, i) => problems[i] === null);
    return problems;
  }

  /** What stops the replay at this entry: a description, or null. */
  hit(sessionId: string, entry: { entryId: number; kind: Kind; name: string }): { kind: 'breakpoint' | 'function breakpoint'; description: string } | null {
    if (this.lines.get(sessionId)?.has(entry.entryId)) return { kind: 'breakpoint', description: `breakpoint on entry ${entry.entryId}` };
    const pattern = this.patterns.find((p) => matchesPattern(p, entry));
    return pattern === undefined ? null : { kind: 'function breakpoint', description: `${pattern}: ${entry.kind} ${entry.name}` };
  }
}

/** `*` ends a prefix pattern; anything else matches a kind or a name exactly. */
export function matchesPattern(pattern: string, entry: { kind: Kind; name: string }): boolean {
  if (pattern.endsWith('*')) return entry.name.startsWith(pattern.slice(0, -1));
  return pattern === entry.kind || pattern === entry.name;
}

function patternProblem(pattern: string): string | null {
  if (pattern.trim() === '') return 'an empty pattern matches nothing; write a kind (anchor, error), a name (view/assembled) or a prefix (handoff/*)';
  if (pattern.indexOf('*') !== -1 && pattern.indexOf('*') !== pattern.length - 1)
    return `"${pattern}": only a trailing * is supported (a name prefix such as handoff/*)`;
  return null;
}
