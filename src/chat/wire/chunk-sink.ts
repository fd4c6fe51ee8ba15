import type { EventSink } from './client-channel.js';

/** Where a chat stream's chunks go; a front door decides how they look on its wire. */
export interface ChunkSink {
  /** True once the client went away; writes are then ignored. */
  readonly closed: boolean;
  /** Commits to a stream: status 200 and headers go out. */
  open(): void;
  /** Sends one chat-completions chunk; resolves when the transport can take more. */
  send(chunk: unknown): Promise<void>;
  /** Ends the stream. */
  finish(): Promise<void>;
}

/** The Chat Completions wire: every chunk is one event, and the stream ends with `[DONE]`. */
export function chatChunkSink(events: EventSink): ChunkSink {
  return {
    get closed() {
      return events.closed;
    },
    open: () => events.open(),
    send: (chunk) => events.send(chunk),
    finish: () => events.end(true),
  };
}
