import type { ClientChannel, EventSink } from '../../chat/index.js';
import { ResponseDeparture } from '../edge/abort-on-close.js';
import type { GatewayContext } from '../state.js';
import { commitStream, namedFrame, sseFrame, SSE_DONE, SseWriter } from './sse-writer.js';

/**
 * The chat path's view of a Koa request: the client's departure, tied to the socket, and an event
 * sink that frames events as server-sent events. Until the sink opens, Koa still owns the
 * response, so an error is a normal JSON answer.
 */
export function clientChannel(ctx: GatewayContext): ClientChannel {
  const departure = new ResponseDeparture(ctx.res);
  const writer = new SseWriter(ctx.res);
  const events: EventSink = {
    get closed() {
      return writer.closed;
    },
    open: (headers = {}) => commitStream(ctx, writer, headers),
    send: (data, name) => writer.write(name === undefined ? sseFrame(JSON.stringify(data)) : namedFrame(name, data)),
    end: (done) => writer.end(done ? SSE_DONE : ''),
  };
  const setHeaders = (headers: Readonly<Record<string, string>>): void => {
    if (!ctx.headerSent) ctx.set(headers);
  };
  return { departure, events, setHeaders, dispose: () => departure.dispose() };
}
