import * as z from 'zod/mini';

/**
 * The one typed message map between the extension host and its webviews. Both sides parse what
 * they receive with these schemas, so a malformed or foreign message is refused at the boundary
 * instead of half-handled.
 */
export const hostToWebview = z.discriminatedUnion('type', [
  z.object({ type: z.literal('about'), extension: z.string(), sqlite: z.string(), vscode: z.string() }),
  z.object({ type: z.literal('error'), message: z.string() }),
]);
export type HostToWebview = z.infer<typeof hostToWebview>;

export const webviewToHost = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('runCommand'), command: z.enum(['agentTape.showVersion']) }),
]);
export type WebviewToHost = z.infer<typeof webviewToHost>;
