import * as z from 'zod';
import { REASONING_EFFORTS, toolChoiceSchema } from '../tape/requestParams';
import { toolDefinitionSchema } from '../tape/toolsEntry';

/**
 * A change to a recorded request before it is sent again: what a re-run or an evaluation varies.
 * It comes from CLI flags and webview messages, so it is parsed with `variationSchema` (strict: a
 * misspelt field is refused, never ignored). Every field is optional; the empty variation rebuilds
 * the recorded request exactly. Each field changes only what it names.
 */

const entryId = z.number().int().positive();
const text = z.string().min(1);

export const variationSchema = z.strictObject({
  /** The text of the system prompt in force (the request must have had one). */
  systemPrompt: z.string().optional(),
  tools: z
    .strictObject({
      /** Recorded tools taken out, by name; each must be one of them. */
      remove: z.array(text).optional(),
      /** Definitions offered after the recorded ones; a name still offered is refused (remove it to replace it). */
      add: z.array(toolDefinitionSchema).optional(),
    })
    .optional(),
  /**
   * Context items left out, by the entry id the manifest's `included` names: a message with its
   * tool calls and results, a tool call or result with its pair, or the system prompt.
   */
  drop: z.array(entryId).optional(),
  /** Context items sent with other text, by entry id: a message's content, a tool call's arguments text, a tool result's output. */
  edit: z.array(z.strictObject({ entryId, content: z.string() })).optional(),
  /** Another budget: the window the context is fitted to and the output cap it leaves room for (and sends). */
  budget: z.strictObject({ contextWindow: z.number().int().positive().optional(), maxOutput: z.number().int().nonnegative().optional() }).optional(),
  /** Another context policy, built by that policy's builder among those the caller knows. */
  policy: z.strictObject({ name: text, version: z.number().int().positive() }).optional(),
  /** Sampling options over the recorded ones; null takes a recorded option out (the server's default). */
  params: z
    .strictObject({
      temperature: z.number().finite().nonnegative().nullable().optional(),
      toolChoice: toolChoiceSchema.nullable().optional(),
      reasoningEffort: z.enum(REASONING_EFFORTS).nullable().optional(),
      seed: z.number().int().nullable().optional(),
    })
    .optional(),
  /** The model the rebuilt manifest names: the one the caller sends it to (the port is the caller's). */
  model: z.strictObject({ vendor: text, id: text }).optional(),
});

export type Variation = z.infer<typeof variationSchema>;
