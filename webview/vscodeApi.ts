import type { WebviewToHost } from '../src/protocol/messages';

interface VsCodeApi {
  postMessage(message: WebviewToHost): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

/** acquireVsCodeApi may be called only once per webview; everything shares this handle. */
export const host: VsCodeApi = acquireVsCodeApi();
