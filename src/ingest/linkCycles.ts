import { SUBAGENT_LINKED } from '../tape/entryNames';
import { linkedChildren } from '../store/subagentLinks';
import type { TapeStore } from '../store/tapeStore';
import type { NewEntry } from '../tape/entry';
import { linkData } from '../tape/fork';
import { countSkip, type MappedSession } from './format';

/** The child a mapped `subagent/linked` event names, or null for any other entry. */
export const linkTarget = (e: NewEntry): string | null =>
  e.kind === 'event' && e.name === SUBAGENT_LINKED ? (linkData.safeParse(e.payload.data).data?.childSessionId ?? null) : null;

/**
 * The sessions without the links that would make the tape's links a cycle: a session linked as its
 * own subagent, and every link between sessions that reach each other through the links mapped
 * and those on the tape (one strongly connected component), each counted as skipped. A parent
 * walking its children would never end, and each link freezes a head the next link moves, so a
 * cycle ingested again appended new links forever. Dropping every link of a cycle, whatever its
 * order in the source, leaves the same links on each run; a link the tape already has adds no
 * cycle and is kept. Linear in the sessions and links, through each session's links read once.
 */
export function withoutLinkCycles(store: TapeStore, sessions: readonly MappedSession[], skipped: Record<string, number>): MappedSession[] {
  const mapped = new Map<string, string[]>();
  for (const { sessionId, entries } of sessions)
    for (const e of entries) {
      const child = linkTarget(e);
      if (child !== null) mapped.set(sessionId, [...(mapped.get(sessionId) ?? []), child]);
    }
  const onTape = new Map<string, string[]>();
  const childrenOf = (s: string): string[] => {
    let tape = onTape.get(s);
    if (tape === undefined) onTape.set(s, (tape = linkedChildren(store, s).map((l) => l.childSessionId)));
    return [...(mapped.get(s) ?? []), ...tape];
  };
  const component = componentsOf(mapped.keys(), childrenOf);
  return sessions.map(({ sessionId, entries }) => ({
    sessionId,
    entries: entries.filter((e) => {
      const child = linkTarget(e);
      if (child === null) return true;
      if (child === sessionId) countSkip(skipped, 'subagent/self-link');
      else if (component.get(child) === component.get(sessionId)) countSkip(skipped, 'subagent/cycle');
      else return true;
      return false;
    }),
  }));
}

/**
 * The strongly connected component of every node reachable from `roots` (Tarjan's algorithm, with
 * a stack of its own: a source may nest sessions deeper than the call stack goes).
 */
function componentsOf(roots: Iterable<string>, next: (node: string) => readonly string[]): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const component = new Map<string, number>();
  const open: string[] = [];
  const work: { node: string; edges: readonly string[]; at: number }[] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.size - 1);
    open.push(node);
    work.push({ node, edges: next(node), at: 0 });
  };
  for (const root of roots) {
    if (!index.has(root)) visit(root);
    for (let top = work.at(-1); top !== undefined; top = work.at(-1)) {
      if (top.at < top.edges.length) {
        const to = top.edges[top.at++];
        if (!index.has(to)) visit(to);
        else if (!component.has(to)) low.set(top.node, Math.min(low.get(top.node) ?? 0, index.get(to) ?? 0));
        continue;
      }
      work.pop();
      const own = low.get(top.node) ?? 0;
      const caller = work.at(-1);
      if (caller !== undefined) low.set(caller.node, Math.min(low.get(caller.node) ?? 0, own));
      if (own === index.get(top.node)) {
        for (let member = open.pop(); member !== undefined; member = member === top.node ? undefined : open.pop()) component.set(member, own);
      }
    }
  }
  return component;
}
