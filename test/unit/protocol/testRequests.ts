import * as z from 'zod/mini';
import type { RequestMap } from '../../../src/protocol/requestMap';

/** A small request map for the messenger and dispatcher tests. */
export const testRequests = {
  square: { params: z.object({ n: z.number() }), reply: z.object({ n: z.number(), square: z.number() }) },
  echo: { params: z.object({ text: z.string() }), reply: z.string() },
} satisfies RequestMap;
