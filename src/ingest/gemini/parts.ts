import * as z from 'zod';

/**
 * The content of a Gemini CLI message or tool result: `@google/genai`'s PartListUnion, a string, one
 * Part or a list of both. Parts are validated loosely: the SDK adds kinds between versions.
 */

const part = z.looseObject({
  text: z.string().optional(),
  // `true` on a model's thought; a thought written by older SDKs may be its text.
  thought: z.union([z.boolean(), z.string()]).optional(),
  functionCall: z.looseObject({ id: z.string().optional(), name: z.string().optional() }).optional(),
  functionResponse: z.looseObject({ id: z.string().optional(), name: z.string().optional(), response: z.unknown().optional() }).optional(),
});
export type Part = z.infer<typeof part>;

/** The parts of a content value; anything that is neither a string nor an object is no part. */
export function partsOf(content: unknown): Part[] {
  const items = Array.isArray(content) ? content : content === undefined || content === null ? [] : [content];
  return items.flatMap((item): Part[] => {
    if (typeof item === 'string') return [{ text: item }];
    const p = part.safeParse(item);
    return p.success ? [p.data] : [];
  });
}

const isThought = (p: Part): boolean => p.thought !== undefined && p.thought !== false;

/** The text a content shows: its text parts that are not thoughts, joined as Gemini CLI joins them (without a separator). */
export const textOf = (parts: readonly Part[]): string =>
  parts
    .filter((p) => p.text !== undefined && !isThought(p))
    .map((p) => p.text)
    .join('');

/** The thoughts a content carries as parts (a synthetic acknowledgement's, a model turn synced from the history). */
export const thoughtPartsOf = (parts: readonly Part[]): string[] =>
  parts.flatMap((p) => (isThought(p) ? [typeof p.text === 'string' ? p.text : typeof p.thought === 'string' ? p.thought : ''] : []));

/** What a part is when it is not text: `functionCall`, `inlineData`, …; null for a text part. */
export function nonTextKindOf(p: Part): string | null {
  if (p.text !== undefined) return null;
  return Object.keys(p).find((k) => k !== 'thoughtSignature') ?? 'empty';
}

/**
 * A tool result as the model got it: the text of its function responses (`response.output`, or
 * `response.error` for a failure) and text parts when that is all it holds, else the parts as the
 * source has them (images, files), so nothing is lost.
 */
export function toolOutputOf(result: unknown): unknown {
  if (result === undefined || result === null) return '';
  if (typeof result === 'string') return result;
  const parts = Array.isArray(result) ? result : [result];
  const texts: string[] = [];
  for (const raw of parts) {
    const p = part.safeParse(typeof raw === 'string' ? { text: raw } : raw);
    if (!p.success) return result;
    const response = p.data.functionResponse?.response as { output?: unknown; error?: unknown } | undefined;
    if (p.data.text !== undefined) texts.push(p.data.text);
    else if (typeof response?.output === 'string') texts.push(response.output);
    else if (typeof response?.error === 'string') texts.push(response.error);
    else return result;
  }
  return texts.join('\n');
}

/** The function responses a content holds, by call id: a tool result sent back to the model as a user turn. */
export function functionResponsesOf(parts: readonly Part[]): Map<string, Part> {
  const out = new Map<string, Part>();
  for (const p of parts) if (p.functionResponse?.id !== undefined) out.set(p.functionResponse.id, p);
  return out;
}
