import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** What an HTTP drain could not finish. */
export interface HttpDrainResult {
  /** Server-sent-event responses still open when the time ran out. */
  streamsCut: number;
  /** Other responses still open when the time ran out. */
  requestsCut: number;
}

/**
 * Counts a server's open responses so a shutdown can wait for them and say what it cut. Streams
 * are told apart by the content type set on the response (Koa sets headers with setHeader).
 */
export class HttpDrain {
  private readonly open = new Set<ServerResponse>();
  private idle: (() => void) | undefined;
  private draining = false;
  private count = 0;

  constructor(private readonly server: Server) {
    server.on('request', (_req: IncomingMessage, res: ServerResponse) => {
      this.count += 1;
      // A keep-alive client may still send on an open connection: serve it, then hang up.
      if (this.draining && !res.headersSent) res.setHeader('connection', 'close');
      this.open.add(res);
      res.once('close', () => {
        this.open.delete(res);
        if (this.draining) this.server.closeIdleConnections();
        if (this.open.size === 0) this.idle?.();
      });
    });
  }

  /** Requests received since the server started. */
  get started(): number {
    return this.count;
  }

  /** Responses not yet finished. */
  get inFlight(): number {
    return this.open.size;
  }

  /**
   * Stops accepting connections, closes idle keep-alive sockets, and waits up to `ms` for open
   * responses (streams included) to end. Whatever is still open then is cut: its socket is
   * destroyed, and it is counted.
   */
  async drain(ms: number): Promise<HttpDrainResult> {
    this.draining = true;
    for (const res of this.open) if (!res.headersSent) res.setHeader('connection', 'close');
    this.server.close();
    this.server.closeIdleConnections();
    if (this.open.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    const result: HttpDrainResult = { streamsCut: 0, requestsCut: 0 };
    for (const res of this.open) {
      if (isEventStream(res)) result.streamsCut += 1;
      else result.requestsCut += 1;
    }
    this.server.closeAllConnections();
    return result;
  }
}

function isEventStream(res: ServerResponse): boolean {
  const type = res.getHeader('content-type');
  return typeof type === 'string' && type.includes('text/event-stream');
}
