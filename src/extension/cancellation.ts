import * as vscode from 'vscode';

/**
 * VS Code cancels with tokens, the core with AbortSignals; these bridge the two. Each returns a
 * disposable so the listener does not outlive the call.
 */
export function abortSignalOf(token: vscode.CancellationToken): { readonly signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  const listener = token.onCancellationRequested(() => controller.abort());
  return { signal: controller.signal, dispose: () => listener.dispose() };
}

/** Disposing cancels too: work the caller stopped waiting for (a stream it no longer reads) stops with it. */
export function cancellationOf(signal: AbortSignal | undefined): { readonly token: vscode.CancellationToken; dispose(): void } {
  const source = new vscode.CancellationTokenSource();
  if (signal?.aborted) source.cancel();
  const onAbort = () => source.cancel();
  signal?.addEventListener('abort', onAbort, { once: true });
  return {
    token: source.token,
    dispose: () => {
      signal?.removeEventListener('abort', onAbort);
      source.cancel();
      source.dispose();
    },
  };
}

/** A refusal or cancellation from VS Code; it crosses the extension host's RPC as a plain Error named "Canceled". */
export function isCancellationError(error: unknown): boolean {
  return error instanceof vscode.CancellationError || (error instanceof Error && error.name === 'Canceled');
}
