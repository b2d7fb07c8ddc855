import * as z from 'zod/mini';

/**
 * Requests between a webview and the extension host, each naming its reply (in the style of
 * Continue's typed protocol): a request map gives, per method, the zod schema of its params and of
 * its reply. On the wire a request is one envelope carrying an id, and its reply carries the id
 * back; the webview's `Messenger` pairs them, the host's `RequestDispatcher` answers. Pushes (what
 * the host says unasked) stay plain `{ type }` messages beside these envelopes.
 */
export type RequestMap = Record<string, { params: z.core.$ZodType; reply: z.core.$ZodType }>;
export type Method<M extends RequestMap> = keyof M & string;
export type ParamsOf<M extends RequestMap, K extends Method<M>> = z.output<M[K]['params']>;
export type ReplyOf<M extends RequestMap, K extends Method<M>> = z.output<M[K]['reply']>;

const id = z.number();

/** Params are checked against the method's schema by the dispatcher, which can answer with an error. */
export const requestMessage = z.object({ type: z.literal('request'), id, method: z.string(), params: z.unknown() });
export type RequestMessage = z.infer<typeof requestMessage>;

/** The result is checked against the method's reply schema by the messenger, which knows the method. */
export const replyMessage = z.discriminatedUnion('ok', [
  z.object({ type: z.literal('reply'), id, ok: z.literal(true), result: z.unknown() }),
  z.object({ type: z.literal('reply'), id, ok: z.literal(false), error: z.string() }),
]);
export type ReplyMessage = z.infer<typeof replyMessage>;
