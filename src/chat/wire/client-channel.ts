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

/**
 * The client's leaving, as an upstream call listens for it: the part of an AbortSignal it uses,
 * so the edge can offer it without an AbortController per request (an AbortSignal fits too).
 */
export interface ClientDeparture {
  /** True once the client went away before the response ended. */
  readonly aborted: boolean;
  /** Why (set once `aborted`). */
  readonly reason: unknown;
  /** Calls `listener` once when the client goes away. */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One client connection: its departure and its event sink. */
export interface ClientChannel {
  /** Fires when the client goes away before the response ended. */
  readonly departure: ClientDeparture;
  readonly events: EventSink;
  /** Adds headers to the response, streamed or not (ignored once they were sent). */
  setHeaders(headers: Readonly<Record<string, string>>): void;
  /** Stops watching the connection (the request is over). */
  dispose(): void;
}
