import type { ClientChannel, DoorStreamForm, EventSink } from '../../chat/index.js';
import type { GatewayError } from '../../platform/errors/index.js';
import { ResponseDeparture } from '../edge/abort-on-close.js';
import type { GatewayContext } from '../state.js';
import { commitStream, namedFrame, SSE_COMMENT_HEARTBEAT, SSE_PING_HEARTBEAT, sseFrame, SSE_DONE, SseWriter } from './sse-writer.js';

/**
 * A stream's events framed as server-sent events. A class because V8 keeps an object literal
 * with a getter in dictionary mode, and every open stream holds one of these.
 */
class SseEventSink implements EventSink {
  constructor(
    private readonly ctx: GatewayContext,
    private readonly writer: SseWriter,
  ) {}

  get closed(): boolean {
    return this.writer.closed;
  }

  /** Commits the stream; a no-op once it was committed early (its headers are out by then). */
  open(headers: Readonly<Record<string, string>> = {}): void {
    if (!this.writer.opened) commitStream(this.ctx, this.writer, headers);
  }

  send(data: unknown, name?: string): Promise<void> {
    return this.writer.write(name === undefined ? sseFrame(JSON.stringify(data)) : namedFrame(name, data));
  }

  end(done: boolean): Promise<void> {
    return this.writer.end(done ? SSE_DONE : '');
  }

  /**
   * Ends a committed stream that failed where the chat path had no stream of its own to report
   * it in (committed early, then no route answered): the door's error events, then its end.
   * False when the stream was never committed, so the error is still a normal JSON answer.
   */
  async fail(err: GatewayError, form: DoorStreamForm, model: string): Promise<boolean> {
    if (!this.writer.opened || this.ctx.res.writableEnded) return false;
    for (const event of form.failure(err, { requestId: this.ctx.state.requestId, model })) await this.send(event.data, event.name);
    await this.end(form.done);
    return true;
  }
}

/** A chat request's channel at the edge: the chat path's view, and how the edge ends it on failure. */
export interface EdgeChannel extends ClientChannel {
  readonly events: SseEventSink;
}

/**
 * The chat path's view of a Koa request: the client's departure, tied to the socket, and an event
 * sink that frames events as server-sent events. Until the sink opens, Koa still owns the
 * response, so an error is a normal JSON answer. A stream request that waits long for its first
 * byte is committed early by the keep-alive clock, and silent streams get the door's heartbeat.
 */
export function clientChannel(ctx: GatewayContext, form: DoorStreamForm, stream: boolean): EdgeChannel {
  const departure = new ResponseDeparture(ctx.res);
  const clock = ctx.state.keepAlive;
  const heartbeat = clock === undefined ? undefined : { clock, frame: form.ping ? SSE_PING_HEARTBEAT : SSE_COMMENT_HEARTBEAT };
  const events = new SseEventSink(ctx, new SseWriter(ctx.res, heartbeat));
  if (stream) ctx.state.kept?.streamWith(() => events.open());
  const setHeaders = (headers: Readonly<Record<string, string>>): void => {
    if (!ctx.headerSent) ctx.set(headers);
  };
  return { departure, events, setHeaders, dispose: () => departure.dispose() };
}
