import type { ClientChannel, EventSink } from '../../chat/index.js';
import { ResponseDeparture } from '../edge/abort-on-close.js';
import type { GatewayContext } from '../state.js';
import { commitStream, namedFrame, sseFrame, SSE_DONE, SseWriter } from './sse-writer.js';

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

  open(headers: Readonly<Record<string, string>> = {}): void {
    commitStream(this.ctx, this.writer, headers);
  }

  send(data: unknown, name?: string): Promise<void> {
    return this.writer.write(name === undefined ? sseFrame(JSON.stringify(data)) : namedFrame(name, data));
  }

  end(done: boolean): Promise<void> {
    return this.writer.end(done ? SSE_DONE : '');
  }
}

/**
 * The chat path's view of a Koa request: the client's departure, tied to the socket, and an event
 * sink that frames events as server-sent events. Until the sink opens, Koa still owns the
 * response, so an error is a normal JSON answer.
 */
export function clientChannel(ctx: GatewayContext): ClientChannel {
  const departure = new ResponseDeparture(ctx.res);
  const events = new SseEventSink(ctx, new SseWriter(ctx.res));
  const setHeaders = (headers: Readonly<Record<string, string>>): void => {
    if (!ctx.headerSent) ctx.set(headers);
  };
  return { departure, events, setHeaders, dispose: () => departure.dispose() };
}
