import type { ServerResponse } from 'node:http';
import type { ClientDeparture } from '../../chat/index.js';

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

/**
 * The same watch as {@link abortOnClose} without an AbortController of its own: the chat path
 * builds the one controller of its upstream call on top of it, so a request pays for one.
 */
export class ResponseDeparture implements ClientDeparture {
  aborted = false;
  reason: unknown = undefined;
  private listeners: Array<() => void> = [];

  constructor(private readonly res: ServerResponse) {
    res.once('close', this.onClose);
    if (res.destroyed) this.onClose();
  }

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.listeners.includes(listener)) this.listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
  }

  /** Stops watching (the response is done). */
  dispose(): void {
    this.res.off('close', this.onClose);
  }

  private readonly onClose = (): void => {
    if (this.aborted || this.res.writableFinished) return;
    this.aborted = true;
    this.reason = new Error('client disconnected');
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) listener();
  };
}
