import { SYSTEM_TOOLS } from './entryNames';
import * as z from 'zod';
import type { Entry, NewEntry } from './entry';
import { toolsHashOf } from './manifest';
import type { ToolDefinition } from './modelRequest';
import { namedProvenanceKey } from './provenanceKey';

/**
 * The tool definitions a request offered, on the tape as a `system/tools` entry: a manifest holds
 * only their hash (`hashes.toolsHash`), and a re-run must send the very same definitions. The entry
 * is content-addressed: its provenance key is the hash, so one set is stored once per session
 * however often it is offered, and a changed set is a new entry. A request's set is the entry
 * whose `hash` is the manifest's `toolsHash`, found at or before the request.
 */

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One definition as a model is offered it; the JSON Schema is kept as written (no copy that could lose a `__proto__` key). */
export const toolDefinitionSchema = z.strictObject({
  name: z.string().min(1),
  description: z.string(),
  parameters: z.custom<Record<string, unknown>>(isPlainObject, { error: 'expected a JSON Schema object' }),
});

const toolsPayloadSchema = z.looseObject({
  content: z.string(),
  hash: z.string().regex(/^[0-9a-f]{64}$/, 'expected a SHA-256 as 64 lowercase hex digits'),
  tools: z.array(toolDefinitionSchema),
});

export class ToolsEntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ToolsEntryError';
  }
}

/** The provenance key of a tool set in a session: its hash. */
export const toolsProvenanceKey = (toolsHash: string): string => namedProvenanceKey(SYSTEM_TOOLS, toolsHash);

/**
 * The `system/tools` entry of the definitions as sent, in their order. `content` names the tools
 * (what a person or a search sees); `tools` holds them whole and `hash` is their `toolsHashOf`.
 */
export function toolsEntry(tools: readonly ToolDefinition[]): NewEntry {
  // Only the three fields a port sends: a definition carrying more would hash differently from
  // this copy, which the loop catches before anything is sent.
  const sent = tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  const hash = toolsHashOf(sent);
  return {
    kind: 'system',
    name: SYSTEM_TOOLS,
    provenanceKey: toolsProvenanceKey(hash),
    payload: { content: sent.map((t) => t.name).join(', '), hash, tools: sent },
  };
}

/** Whether an entry is a tool set (any payload; `toolsOfEntry` checks it). */
export const isToolsEntry = (e: { kind: string; name: string }): boolean => e.kind === 'system' && e.name === SYSTEM_TOOLS;

/**
 * The definitions a `system/tools` entry holds, checked against the schema and against its own
 * hash: an edited entry is refused, naming what is wrong, rather than re-sent as something else.
 */
export function toolsOfEntry(entry: Entry): { hash: string; tools: ToolDefinition[] } {
  const where = `entry ${entry.entryId} (${entry.kind} ${entry.name})`;
  if (!isToolsEntry(entry)) throw new ToolsEntryError(`${where} is not a ${SYSTEM_TOOLS} entry`);
  const r = toolsPayloadSchema.safeParse(entry.payload);
  if (!r.success) throw new ToolsEntryError(`${where} holds no valid tool set: ${z.prettifyError(r.error)}`);
  const computed = toolsHashOf(r.data.tools);
  if (computed !== r.data.hash) throw new ToolsEntryError(`${where} was altered: its hash is ${r.data.hash}, its tools hash to ${computed}`);
  return { hash: r.data.hash, tools: r.data.tools };
}
