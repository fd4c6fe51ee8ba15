/**
 * The client side of one request, as the HTTP edge hands it to the chat path. The edge owns
 * the bytes (server-sent event framing, status and headers); the chat path only sees events.
 */

/** Where one stream's events go. */
export interface EventSink {
  /** True once the client went away; sends are then ignored. */
  readonly closed: boolean;
  /** Commits to a stream: status 200 and the headers go out now. */
  open(headers?: Readonly<Record<string, string>>): void;
  /** Sends one event (`name` becomes its event name); resolves when the transport can take more. */
  send(data: unknown, name?: string): Promise<void>;
  /** Ends the stream; `done` adds the OpenAI-style `[DONE]` terminator. */
  end(done: boolean): Promise<void>;
}

/** One client connection: its abort signal and its event sink. */
export interface ClientChannel {
  /** Fires when the client goes away before the response ended. */
  readonly signal: AbortSignal;
  readonly events: EventSink;
  /** Adds headers to the response, streamed or not (ignored once they were sent). */
  setHeaders(headers: Readonly<Record<string, string>>): void;
  /** Stops watching the connection (the request is over). */
  dispose(): void;
}
