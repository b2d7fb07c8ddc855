import { Handles } from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';

/** Children of an expandable variable: named ones, and indexed ones the client may ask for a page at a time. */
export interface VariableNode {
  named?: () => DebugProtocol.Variable[];
  indexed?: { count: number; page: (start: number, count: number) => DebugProtocol.Variable[] };
}

const PREVIEW_MAX = 200;

/** A value as one line: JSON, cut to PREVIEW_MAX characters. */
function preview(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (v instanceof Map ? Object.fromEntries(v) : v instanceof Set ? [...v] : v)) ?? String(value);
  return text.length > PREVIEW_MAX ? `${text.slice(0, PREVIEW_MAX - 1)}…` : text;
}

/**
 * The Variables of one stop: every expandable variable is a handle on a VariableNode. Handles are
 * dropped at the next stop, as the values they show were the state at this one.
 */
export class VariableTree {
  private readonly handles = new Handles<VariableNode>();

  reset(): void {
    this.handles.reset();
  }

  ref(node: VariableNode): number {
    return this.handles.create(node);
  }

  children(args: DebugProtocol.VariablesArguments): DebugProtocol.Variable[] {
    const node = this.handles.get(args.variablesReference);
    if (node === undefined) throw new Error('those variables belong to an earlier stop; step again to see the current ones');
    const named = args.filter === 'indexed' ? [] : (node.named?.() ?? []);
    if (args.filter === 'named' || node.indexed === undefined) return named;
    const start = args.start ?? 0;
    const count = args.count ?? node.indexed.count - start;
    return [...named, ...node.indexed.page(start, Math.max(0, Math.min(count, node.indexed.count - start)))];
  }

  /** An expandable variable over `node`, showing `value`. */
  node(name: string, value: string, node: VariableNode): DebugProtocol.Variable {
    return { name, value, variablesReference: this.ref(node), indexedVariables: node.indexed?.count };
  }

  /** A list whose items are built a page at a time. */
  list<T>(name: string, items: readonly T[], item: (x: T, index: number) => DebugProtocol.Variable): DebugProtocol.Variable {
    return this.node(name, `${items.length} ${items.length === 1 ? 'item' : 'items'}`, {
      indexed: { count: items.length, page: (start, count) => items.slice(start, start + count).map((x, i) => item(x, start + i)) },
    });
  }

  /** Any JSON-like value (maps and sets included): scalars inline, objects and arrays expandable. */
  json(name: string, value: unknown): DebugProtocol.Variable {
    if (value instanceof Map) return this.json(name, Object.fromEntries(value));
    if (value instanceof Set) return this.json(name, [...value]);
    if (value === null || typeof value !== 'object') return { name, value: value === undefined ? 'undefined' : preview(value), variablesReference: 0 };
    if (Array.isArray(value)) return this.list(name, value, (x, i) => this.json(`[${i}]`, x));
    const entries = Object.entries(value as Record<string, unknown>);
    return this.node(name, preview(value), { named: () => entries.map(([k, v]) => this.json(k, v)) });
  }
}
