import * as z from 'zod/mini';
import { replyMessage, requestMessage, type RequestMap } from './requestMap';

/**
 * The About page's messages. It asks the host what the extension runs on (`about`, answered through
 * the request map like the inspector's requests) and asks it to run a command (one-way). Both sides
 * parse what they receive with these schemas, so a malformed or foreign message is refused at the
 * boundary instead of half-handled.
 */
export const aboutRequests = {
  about: { params: z.object({}), reply: z.object({ extension: z.string(), sqlite: z.string(), vscode: z.string() }) },
} satisfies RequestMap;
export type AboutInfo = z.infer<typeof aboutRequests.about.reply>;

/** The host says nothing unasked: it only answers. */
export const hostToWebview = replyMessage;
export type HostToWebview = z.infer<typeof hostToWebview>;

export const webviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('runCommand'), command: z.enum(['agentTape.showVersion']) }),
  requestMessage,
]);
export type WebviewToHost = z.infer<typeof webviewToHost>;
