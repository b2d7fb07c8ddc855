import { hostToInspector, type HostToInspector, type InspectorToHost } from '../../src/protocol/inspector';
import type { PersistedState } from './state';

interface VsCodeApi {
  postMessage(message: InspectorToHost): void;
  getState(): unknown;
  setState(state: PersistedState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/**
 * The inspector's only line to the extension host. Every message in is parsed with
 * `hostToInspector` before anyone sees it; everything out is an `InspectorToHost`.
 */
export class HostChannel {
  /** acquireVsCodeApi may be called only once per webview, so the channel owns the handle. */
  readonly api: VsCodeApi = acquireVsCodeApi();
  private nextRequestId = 1;

  constructor(onMessage: (msg: HostToInspector) => void, onMalformed: (problem: string) => void) {
    window.addEventListener('message', (event: MessageEvent) => {
      const parsed = hostToInspector.safeParse(event.data);
      if (parsed.success) onMessage(parsed.data);
      else {
        const issue = parsed.error.issues[0];
        onMalformed(issue ? `${issue.path.join('.') || 'message'}: ${issue.message}` : 'invalid');
      }
    });
  }

  post(msg: InspectorToHost): void {
    this.api.postMessage(msg);
  }

  /** A fresh id for a request; replies carry it back, so a reply to a superseded request is recognisable. */
  requestId(): number {
    return this.nextRequestId++;
  }
}
