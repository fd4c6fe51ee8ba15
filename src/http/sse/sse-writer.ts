import type { ServerResponse } from 'node:http';
import type { ParameterizedContext } from 'koa';
import { type KeepAliveClock, Pulse, type Tended } from '../middleware/kept-answer.js';

/** Headers every event-stream response starts with. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  // Stops nginx-style proxies from buffering the stream.
  'X-Accel-Buffering': 'no',
};

/** Frames one payload as a server-sent event. */
export function sseFrame(data: string): string {
  return `data: ${data}\n\n`;
}

/** Frames one named event the way OpenAI's and Anthropic's streams do: an `event:` line, then data. */
export function namedFrame(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The terminating frame of an OpenAI-style stream. */
export const SSE_DONE = sseFrame('[DONE]');

/** A heartbeat every SSE client skips: a comment line (OpenRouter sends `: OPENROUTER PROCESSING`). */
export const SSE_COMMENT_HEARTBEAT = ': keep-alive\n\n';

/** Anthropic's own heartbeat event, which its SDK expects and skips. */
export const SSE_PING_HEARTBEAT = namedFrame('ping', { type: 'ping' });

/** Heartbeats of an open stream: the process's clock and the frame the stream's clients skip. */
export interface SseHeartbeat {
  readonly clock: KeepAliveClock;
  readonly frame: string;
}

/**
 * Writes server-sent events straight to the socket with backpressure. Once the client is
 * gone every write is a no-op, so producers only need to check {@link SseWriter.closed}
 * to stop early.
 */
export class SseWriter implements Tended {
  private gone = false;
  private readonly waiters = new Set<() => void>();
  private readonly pulse = new Pulse();

  constructor(
    private readonly res: ServerResponse,
    private readonly heartbeat?: SseHeartbeat,
  ) {
    res.once('close', () => {
      if (!res.writableFinished) this.gone = true;
      heartbeat?.clock.delete(this);
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    });
  }

  /** True once the client disconnected before the stream ended. */
  get closed(): boolean {
    return this.gone || this.res.destroyed;
  }

  /** True once the status line and headers went out. */
  get opened(): boolean {
    return this.res.headersSent;
  }

  /**
   * Sends the status line and headers right away, so the client sees the stream open; from
   * then on a silent stream gets a heartbeat every interval.
   */
  open(status = 200, headers: Readonly<Record<string, string>> = {}): void {
    for (const [name, value] of Object.entries({ ...SSE_HEADERS, ...headers })) this.res.setHeader(name, value);
    this.res.statusCode = status;
    this.res.socket?.setNoDelay(true);
    this.res.flushHeaders();
    this.heartbeat?.clock.add(this);
  }

  /** Sends a heartbeat when the stream was silent for the interval and is not waiting to drain. */
  tick(now: number): void {
    const heartbeat = this.heartbeat;
    if (heartbeat === undefined || this.closed || this.res.writableEnded) return;
    if (this.pulse.due(now, heartbeat.clock.settings.heartbeatMs) && this.waiters.size === 0) this.res.write(heartbeat.frame);
  }

  /** Writes a raw, already framed piece of the stream. */
  async write(frame: string): Promise<void> {
    if (this.closed) return;
    this.pulse.beat();
    if (this.res.write(frame)) return;
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        this.res.off('drain', wake);
        this.waiters.delete(wake);
        resolve();
      };
      this.waiters.add(wake);
      this.res.once('drain', wake);
    });
  }

  /** Ends the response after `last` (a framed piece, or nothing); resolves once sent or the client left. */
  async end(last = ''): Promise<void> {
    this.heartbeat?.clock.delete(this);
    if (this.closed || this.res.writableEnded) return;
    await new Promise<void>((resolve) => {
      // A client leaving during the final write also ends the wait.
      this.waiters.add(resolve);
      this.res.end(last, () => resolve());
    });
  }
}

/**
 * Commits a Koa request to a stream: status 200 and the headers go out now, and Koa no longer
 * writes the response (until then an error is still a normal JSON answer).
 */
export function commitStream(ctx: Pick<ParameterizedContext, 'status' | 'respond'>, writer: SseWriter, headers: Readonly<Record<string, string>> = {}): void {
  ctx.status = 200;
  ctx.respond = false;
  writer.open(200, headers);
}
