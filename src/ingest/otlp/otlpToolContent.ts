import * as z from 'zod';
import type { AttributeValue } from './otlpSpans';

/**
 * A tool span's arguments and result. The semconv puts them in `gen_ai.tool.call.arguments` and
 * `gen_ai.tool.call.result`; Gemini CLI (0.61.0) in `gen_ai.input.messages` and
 * `gen_ai.output.messages` instead, as its scheduler's call request (`{callId, name, args}`) and
 * completed call (`{status, response: {responseParts: [{functionResponse: {response}}]}}`), read
 * here when the semconv's attribute is absent. Values are JSON already (`jsonOf`).
 */

const geminiRequest = z.looseObject({ callId: z.string(), args: z.unknown() });
const geminiCompleted = z.looseObject({
  response: z.looseObject({
    responseParts: z.array(z.looseObject({ functionResponse: z.looseObject({ response: z.unknown() }).optional() })),
  }),
});
const outputOnly = z.looseObject({ output: z.string() });

/** The call's arguments: the semconv's, else Gemini CLI's request's `args`, else undefined. */
export function toolArgumentsOf(args: unknown, input: unknown): unknown {
  if (args !== undefined) return args;
  const request = geminiRequest.safeParse(input);
  return request.success ? request.data.args : undefined;
}

/** The call's result: the semconv's, else the responses Gemini CLI sent the model (one's `output` text as it is), else undefined. */
export function toolResultOf(result: AttributeValue | undefined, output: unknown): unknown {
  if (result !== undefined) return result;
  const completed = geminiCompleted.safeParse(output);
  if (!completed.success) return undefined;
  const responses = completed.data.response.responseParts.flatMap((p) => (p.functionResponse === undefined ? [] : [p.functionResponse.response]));
  const only = responses.length === 1 ? outputOnly.safeParse(responses[0]) : undefined;
  return only?.success === true ? only.data.output : responses.length === 0 ? undefined : responses;
}
