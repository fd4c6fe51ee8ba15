import type { ServerResponse } from 'node:http';

/** An abort signal that fires when the client goes away before the response finished. */
export interface ClientAbort {
  readonly signal: AbortSignal;
  /** Stops watching (the response is done). */
  dispose(): void;
}

/**
 * Ties upstream work to the client connection: a closed socket before the response ended
 * aborts the upstream call, so a departed client stops costing upstream tokens.
 */
export function abortOnClose(res: ServerResponse): ClientAbort {
  const controller = new AbortController();
  const onClose = (): void => {
    if (!res.writableFinished) controller.abort(new Error('client disconnected'));
  };
  res.once('close', onClose);
  if (res.destroyed) onClose();
  return { signal: controller.signal, dispose: () => res.off('close', onClose) };
}
