import * as z from 'zod';
import { TapeFileError } from '../../store/errors';
import { MAX_JSON_DEPTH, tooDeep } from '../../tape/jsonDepth';
import { countSkip } from '../format';
import { parseTranscript } from '../transcriptLines';

/**
 * VS Code's chat mutation log (`chatSessions/<id>.jsonl`, ObjectMutationLog in
 * src/vs/workbench/contrib/chat/common/model/objectMutationLog.ts): one entry a line, replayed
 * from the start. `{kind: 0, v}` is the whole state (the first line, and again whenever VS Code
 * compacts the log by rewriting the file); `{kind: 1, k, v}` sets the value at the key path `k`;
 * `{kind: 2, k, v?, i?}` cuts the array at `k` to length `i` (when given) and pushes the items
 * `v`; `{kind: 3, k}` deletes the value at `k`. VS Code appends to the file while we read it, so
 * a last line cut short is left out (the next run reads it whole).
 */

const pathPart = z.union([z.string(), z.number().int().nonnegative()]);
/** Real paths are a few keys long (requests, index, field, index); a long one only deepens the state. */
const MAX_PATH = 32;
const entry = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal(0), v: z.unknown() }),
  z.object({ kind: z.literal(1), k: z.array(pathPart).max(MAX_PATH), v: z.unknown() }),
  z.object({ kind: z.literal(2), k: z.array(pathPart).min(1).max(MAX_PATH), v: z.array(z.unknown()).optional(), i: z.number().int().nonnegative().optional() }),
  z.object({ kind: z.literal(3), k: z.array(pathPart).min(1).max(MAX_PATH) }),
]);

/** Keys that would reach an object's prototype instead of a field of its own. */
const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

type Container = Record<string, unknown> | unknown[];
const isContainer = (v: unknown): v is Container => typeof v === 'object' && v !== null;

/** The container a path's last part is a field of, when every part names a field of its own; else null. */
function parentAt(state: unknown, path: readonly (string | number)[]): { parent: Container; key: string | number } | null {
  let at: unknown = state;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i];
    if (!isContainer(at) || !Object.hasOwn(at, key)) return null;
    at = (at as Record<string | number, unknown>)[key];
  }
  const key = path[path.length - 1];
  if (!isContainer(at) || Array.isArray(at) !== (typeof key === 'number')) return null;
  // An index past the end would leave holes, which JSON has no way to write.
  if (Array.isArray(at) && (key as number) > at.length) return null;
  return { parent: at, key };
}

// A defined property, not an assignment: whatever the key, it becomes a field and nothing else.
const put = (parent: Container, key: string | number, value: unknown): void => {
  Object.defineProperty(parent, key, { value, enumerable: true, writable: true, configurable: true });
};

/** Whether `value` nests arrays and objects deeper than `limit` (without recursion: the state comes from a file). */
function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (!isContainer(v)) continue;
    if (depth > limit) return true;
    for (const child of Object.values(v)) if (isContainer(child)) stack.push([child, depth + 1]);
  }
  return false;
}

export interface ReplayedLog {
  /** The state the log's whole lines build; undefined when no whole line is there yet (VS Code is writing the first). */
  state: unknown;
  skipped: Record<string, number>;
  /** The log ends in a line VS Code is still writing: it is left for the next run. */
  tornLastLine?: boolean;
  /**
   * The request (its index) the line VS Code is still writing changes, when the log ends in one.
   * VS Code appends all it changed since its last save at once, a request's completion before its
   * last response parts: the request may look complete while the rest of its lines are on the way.
   */
  unsettledRequest?: number;
}

/** The request a log line's path leads into (`["requests", N, …]`), read from its start: a torn line's too. */
const REQUEST_PATH = /^\s*\{\s*"kind"\s*:\s*\d+\s*,\s*"k"\s*:\s*\[\s*"requests"\s*,\s*(\d+)/;
const requestOfLine = (text: string): number | undefined => {
  const m = REQUEST_PATH.exec(text);
  return m === null ? undefined : Number(m[1]);
};

/**
 * The state a mutation log's lines build. A line that is not an entry, or names a path the state
 * does not have (VS Code never writes one), is counted and passed over; a log whose first entry
 * is not the whole state is not VS Code's, or is damaged: a TapeFileError naming the file.
 */
export function replayMutationLog(file: string, bytes: Buffer): ReplayedLog {
  const skipped: Record<string, number> = {};
  const { lines, invalidLines, tornLastLine, next } = parseTranscript(bytes);
  if (invalidLines.length > 0) countSkip(skipped, 'log/invalid-json', invalidLines.length);
  let state: unknown = undefined;
  for (const { lineNo, record } of lines) {
    const parsed = entry.safeParse(record);
    if (!parsed.success) {
      countSkip(skipped, 'log/invalid-entry');
      continue;
    }
    const e = parsed.data;
    if (e.kind === 0) {
      state = e.v;
      continue;
    }
    if (state === undefined) throw new TapeFileError(file, 'is not a VS Code chat session log: it does not start with the whole session state', lineNo);
    if (e.kind === 1 && e.k.length === 0) {
      state = e.v;
      continue;
    }
    const at = e.k.some((p) => typeof p === 'string' && UNSAFE_KEYS.has(p)) ? null : parentAt(state, e.k);
    if (at === null) {
      countSkip(skipped, 'log/bad-path');
      continue;
    }
    const { parent, key } = at;
    if (e.kind === 1) put(parent, key, e.v);
    else if (e.kind === 3) {
      if (Array.isArray(parent)) put(parent, key, undefined);
      else delete parent[key as string];
    } else {
      const current = Object.hasOwn(parent, key) ? (parent as Record<string | number, unknown>)[key] : undefined;
      if (current !== undefined && current !== null && !Array.isArray(current)) {
        countSkip(skipped, 'log/bad-path');
        continue;
      }
      const items = Array.isArray(current) ? current : [];
      if (e.i !== undefined && e.i < items.length) items.length = e.i;
      for (const item of e.v ?? []) items.push(item);
      put(parent, key, items);
    }
  }
  // Paths set values deeper than any one line: the state is held to what a JSON file may nest.
  if (nestsDeeperThan(state, MAX_JSON_DEPTH)) throw new TapeFileError(file, `is not read: its session state ${tooDeep()}`);
  if (!tornLastLine) return { state, skipped, tornLastLine };
  // Too little of the torn line to name its request: the last whole line's is the one being written most likely.
  const last = lines.at(-1)?.record as { k?: unknown } | undefined;
  const lastPath = Array.isArray(last?.k) && last.k[0] === 'requests' && typeof last.k[1] === 'number' ? last.k[1] : undefined;
  return { state, skipped, tornLastLine, unsettledRequest: requestOfLine(bytes.toString('utf8', next.offset)) ?? lastPath };
}
