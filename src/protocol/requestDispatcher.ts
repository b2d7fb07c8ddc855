import * as z from 'zod/mini';
import { type Method, type ParamsOf, type ReplyMessage, type ReplyOf, type RequestMap, type RequestMessage } from './requestMap';
import { errorMessage } from '../tape/errorMessage';

/** One handler per method of the map: it gets the checked params and returns (or resolves to) the reply. */
export type RequestHandlers<M extends RequestMap> = { [K in Method<M>]: (params: ParamsOf<M, K>) => ReplyOf<M, K> | Promise<ReplyOf<M, K>> };

/**
 * The host side of a request map: every request gets exactly one reply with its id. An unknown
 * method, params that do not match the method's schema, and a handler that throws each become an
 * error reply, so a page waiting on its promise hears why instead of waiting for a timeout.
 */
export class RequestDispatcher<M extends RequestMap> {
  constructor(
    private readonly map: M,
    private readonly handlers: RequestHandlers<M>,
    private readonly post: (reply: ReplyMessage) => void,
  ) {}

  async dispatch(request: RequestMessage): Promise<void> {
    const { id, method } = request;
    const fail = (error: string) => this.post({ type: 'reply', id, ok: false, error });
    // Own keys only: a method named `constructor` or `toString` is unknown, not Object's.
    if (!Object.hasOwn(this.map, method)) return fail(`unknown request ${JSON.stringify(method)}`);
    const parsed = z.safeParse(this.map[method].params, request.params);
    if (!parsed.success) return fail(`malformed ${method} request: ${z.prettifyError(parsed.error)}`);
    let result: unknown;
    try {
      result = await this.handlers[method as Method<M>](parsed.data as ParamsOf<M, Method<M>>);
    } catch (e) {
      return fail(errorMessage(e));
    }
    this.post({ type: 'reply', id, ok: true, result });
  }
}
