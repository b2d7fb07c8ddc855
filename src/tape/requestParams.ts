import * as z from 'zod';

/**
 * What a model request asks of the model besides its messages and tools: the output cap and the
 * sampling options a host may set. A manifest (schema version 2) records them as sent, so a re-run
 * sends the same request; a field left out is left to the server's default, here and on the wire.
 */

const toolName = z.string().min(1);

/** Whether the model may, must or must not call a tool, or must call the one named. */
export const toolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), z.strictObject({ name: toolName })]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

export const REASONING_EFFORTS = ['minimal', 'low', 'medium', 'high'] as const;

/** The options a host sets on its requests; each absent one is not sent. */
export const samplingOptionsSchema = z.strictObject({
  temperature: z.number().finite().nonnegative().optional(),
  toolChoice: toolChoiceSchema.optional(),
  reasoningEffort: z.enum(REASONING_EFFORTS).optional(),
  seed: z.number().int().optional(),
});
export type SamplingOptions = z.infer<typeof samplingOptionsSchema>;

/** The parameters of one request as sent: the output cap (the model's `maxOutput`) and the sampling options given. */
export const requestParamsSchema = samplingOptionsSchema.extend({ maxOutput: z.number().int().nonnegative() });
export type RequestParams = z.infer<typeof requestParamsSchema>;

/**
 * The parameters a request is sent with. A tool choice means nothing without tools (and servers
 * refuse one), so it is not sent then, and not recorded either.
 */
export function requestParamsOf(maxOutput: number, sampling: SamplingOptions, toolCount: number): RequestParams {
  const { temperature, toolChoice, reasoningEffort, seed } = sampling;
  // Only the options given: an explicit undefined would not be JSON, and the manifest is hashed as JSON.
  return {
    maxOutput,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(toolChoice !== undefined && toolCount > 0 ? { toolChoice } : {}),
    ...(reasoningEffort !== undefined ? { reasoningEffort } : {}),
    ...(seed !== undefined ? { seed } : {}),
  };
}

/** The sampling options of recorded params (all but the output cap, which the model facts carry). */
export function samplingOf(params: RequestParams): SamplingOptions {
  const { maxOutput: _cap, ...sampling } = params;
  return sampling;
}
