import * as z from 'zod/mini';
import { type Method, type ParamsOf, type ReplyMessage, type ReplyOf, type RequestMap, type RequestMessage } from '../src/protocol/requestMap';

/** Long enough for a ranked search over a large tape on a busy host; short enough that a lost reply surfaces. */
const DEFAULT_TIMEOUT_MS = 60_000;

interface Pending {
  method: string;
  resolve(reply: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The webview side of a request map: `await request(method, params)` resolves to the method's
 * reply, checked against its schema, or rejects with the host's error, a malformed reply or a
 * timeout. Request ids and the pending requests live here only; a reply whose id is not pending
 * (timed out, or never asked) is ignored. A caller that no longer wants an answer ignores it.
 */
export class Messenger<M extends RequestMap> {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(
    private readonly map: M,
    private readonly post: (request: RequestMessage) => void,
    private readonly timeoutMs = DEFAULT_TIMEOUT_MS,
  ) {}

  /**
   * `waitsForUser`: the host asks the user first (a modal confirmation), who may take any time, so
   * no timeout applies; the reply still settles it.
   */
  request<K extends Method<M>>(method: K, params: ParamsOf<M, K>, options: { waitsForUser?: boolean } = {}): Promise<ReplyOf<M, K>> {
    const id = this.nextId++;
    return new Promise<ReplyOf<M, K>>((resolve, reject) => {
      const timer =
        options.waitsForUser === true
          ? undefined
          : setTimeout(() => this.take(id)?.reject(new Error(`the extension did not answer ${method} within ${this.timeoutMs / 1000} s`)), this.timeoutMs);
      this.pending.set(id, { method, resolve: resolve as (reply: unknown) => void, reject, timer });
      try {
        this.post({ type: 'request', id, method, params });
      } catch (e) {
        this.take(id);
        reject(e instanceof Error ? e : new Error(String(e)));
      }
    });
  }

  /** A reply envelope from the host (already parsed as one): settles its request, if still pending. */
  receive(reply: ReplyMessage): void {
    const p = this.take(reply.id);
    if (p === undefined) return;
    if (!reply.ok) return p.reject(new Error(reply.error));
    const parsed = z.safeParse(this.map[p.method].reply, reply.result);
    if (parsed.success) p.resolve(parsed.data);
    else p.reject(new Error(`unexpected reply to ${p.method} from the extension: ${z.prettifyError(parsed.error)}`));
  }

  private take(id: number): Pending | undefined {
    const p = this.pending.get(id);
    if (p === undefined) return undefined;
    this.pending.delete(id);
    clearTimeout(p.timer);
    return p;
  }
}
