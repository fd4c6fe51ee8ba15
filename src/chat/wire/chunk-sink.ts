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

/**
 * The Chat Completions wire: every chunk is one event, and the stream ends with `[DONE]`.
 * A class because V8 keeps an object literal with a getter in dictionary mode.
 */
class ChatChunkSink implements ChunkSink {
  constructor(private readonly events: EventSink) {}

  get closed(): boolean {
    return this.events.closed;
  }

  open(): void {
    this.events.open();
  }

  send(chunk: unknown): Promise<void> {
    return this.events.send(chunk);
  }

  finish(): Promise<void> {
    return this.events.end(true);
  }
}

/** The Chat Completions wire's sink over a stream's events. */
export function chatChunkSink(events: EventSink): ChunkSink {
  return new ChatChunkSink(events);
}
