import * as z from 'zod';
import type { ToolCall } from './modelPort';

/** One streamed fragment of a tool call; only `index` ties the fragments of one call together. */
export interface ToolCallFragment {
  index: number;
  id?: string;
  name?: string;
  arguments?: string;
}

// The arguments come from the model: data to validate, not a shape to trust.
const argumentsObject = z.record(z.string(), z.unknown());

/** Joins tool-call fragments by index and turns each finished call into a `ToolCall`. */
export class ToolCallAssembler {
  private readonly calls = new Map<number, { id: string; name: string; raw: string }>();

  add(fragment: ToolCallFragment): void {
    const call = this.calls.get(fragment.index) ?? { id: '', name: '', raw: '' };
    // Servers repeat the id and name on later fragments, or send them once: the first one sticks.
    if (fragment.id && !call.id) call.id = fragment.id;
    if (fragment.name && !call.name) call.name = fragment.name;
    if (fragment.arguments) call.raw += fragment.arguments;
    this.calls.set(fragment.index, call);
  }

  /** The calls in index order; a call without an id gets one, since results must name their call. */
  finish(): ToolCall[] {
    const out = [...this.calls.entries()].sort(([a], [b]) => a - b).map(([index, c]) => parseCall(c.id || `call_${index}`, c.name, c.raw));
    this.calls.clear();
    return out;
  }
}

export function parseCall(id: string, name: string, raw: string): ToolCall {
  if (!name) return { id, name, valid: false, rawArguments: raw, problem: 'the tool call has no name' };
  // Servers send an empty string for a tool without parameters.
  if (raw.trim() === '') return { id, name, valid: true, arguments: {}, rawArguments: raw };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    return { id, name, valid: false, rawArguments: raw, problem: `the arguments are not valid JSON (${(e as Error).message})` };
  }
  const object = argumentsObject.safeParse(parsed);
  return object.success
    ? { id, name, valid: true, arguments: object.data, rawArguments: raw }
    : { id, name, valid: false, rawArguments: raw, problem: 'the arguments are not a JSON object' };
}
