import * as z from 'zod/mini';
import {
  hostToInspector,
  inspectorRequests,
  type InspectorNotice,
  type InspectorPush,
  type InspectorRequests,
  type InspectorToHost,
} from '../../src/protocol/inspector';
import type { Method, ParamsOf, ReplyOf } from '../../src/protocol/requestMap';
import { Messenger } from '../messenger';
import type { PersistedState } from './state';
import { errorMessage } from '../../src/tape/errorMessage';

interface VsCodeApi {
  postMessage(message: InspectorToHost): void;
  getState(): unknown;
  setState(state: PersistedState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/**
 * The inspector's only line to the extension host. Every message in is parsed with
 * `hostToInspector` before anyone sees it: replies settle their requests (the messenger checks
 * each against its method's reply schema), pushes go to `onPush`. What goes out is a notice or a
 * request of `inspectorRequests`.
 */
export class HostChannel {
  /** acquireVsCodeApi may be called only once per webview, so the channel owns the handle. */
  readonly api: VsCodeApi = acquireVsCodeApi();
  private readonly messenger = new Messenger(inspectorRequests, (m) => this.api.postMessage(m));

  constructor(
    onPush: (msg: InspectorPush) => void,
    private readonly onProblem: (text: string) => void,
  ) {
    window.addEventListener('message', (event: MessageEvent) => {
      const parsed = hostToInspector.safeParse(event.data);
      if (!parsed.success) {
        onProblem(`Unexpected message from the extension (ignored): ${z.prettifyError(parsed.error)}`);
      } else if (parsed.data.type === 'reply') this.messenger.receive(parsed.data);
      else onPush(parsed.data);
    });
  }

  post(msg: InspectorNotice): void {
    this.api.postMessage(msg);
  }

  request<K extends Method<InspectorRequests>>(
    method: K,
    params: ParamsOf<InspectorRequests, K>,
    options: { waitsForUser?: boolean } = {},
  ): Promise<ReplyOf<InspectorRequests, K>> {
    return this.messenger.request(method, params, options);
  }

  /** A request that failed (the host's error, a malformed reply, no answer): shown as the host's errors are. */
  report(e: unknown): void {
    this.onProblem(errorMessage(e));
  }
}
