import type { ServerResponse } from 'node:http';
import type { KeepAliveSettings } from '../../platform/config/index.js';

/** Something the keep-alive clock looks after: told the time on every tick. */
export interface Tended {
  tick(now: number): void;
}

/**
 * One timer for every slow answer of the process. Each request it tends is a Set entry, not a
 * timer of its own, so a fast request pays an add and a delete; a tick every quarter of the
 * shorter interval keeps each due commit or heartbeat within that quarter of its time. The
 * timer runs only while something is tended, so a quiet process stays quiet.
 */
export class KeepAliveClock {
  private readonly tended = new Set<Tended>();
  private timer: NodeJS.Timeout | undefined;
  private readonly periodMs: number;

  constructor(readonly settings: KeepAliveSettings) {
    const shortest = settings.earlyCommitMs > 0 ? Math.min(settings.earlyCommitMs, settings.heartbeatMs) : settings.heartbeatMs;
    this.periodMs = Math.max(5, Math.floor(shortest / 4));
  }

  add(entry: Tended): void {
    this.tended.add(entry);
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tickAll(), this.periodMs);
    this.timer.unref();
  }

  delete(entry: Tended): void {
    this.tended.delete(entry);
    if (this.tended.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private tickAll(): void {
    const now = performance.now();
    for (const entry of this.tended) entry.tick(now);
  }
}

/**
 * Whether an answer has been silent for a heartbeat's interval. Writers only raise a flag (no
 * clock read per write); a tick that finds it lowered for a whole interval calls for a beat,
 * so the longest silence is the interval plus one tick.
 */
export class Pulse {
  private wrote = false;
  private last = performance.now();

  /** Something was sent. */
  beat(): void {
    this.wrote = true;
  }

  /** True when nothing was sent for `intervalMs` (the caller then sends a heartbeat). */
  due(now: number, intervalMs: number): boolean {
    if (this.wrote) {
      this.wrote = false;
      this.last = now;
      return false;
    }
    if (now - this.last < intervalMs) return false;
    this.last = now;
    return true;
  }
}

/** The part of a Koa context a kept answer takes over once it commits. */
interface Committable {
  readonly res: ServerResponse;
  respond?: boolean;
}

/** The trailer that carries a committed answer's real status. */
export const STATUS_TRAILER = 'X-Farebox-Status';

/**
 * A request whose answer may be slow. Once it has waited `earlyCommitMs` without an answer it
 * is committed: a stream through the commit its channel registered ({@link streamWith}), any
 * other answer as `200` JSON whose body starts with whitespace, one space every heartbeat
 * until {@link finish} writes the real body (leading whitespace is valid JSON). A failure then
 * is the error object with its status inside it and in the {@link STATUS_TRAILER} trailer.
 */
export class KeptAnswer implements Tended {
  private readonly since = performance.now();
  private state: 'waiting' | 'json' | 'passed' = 'waiting';
  private streamCommit: (() => void) | undefined;
  /** Made at the commit: most answers never get there. */
  private pulse: Pulse | undefined;

  constructor(
    private readonly ctx: Committable,
    private readonly settings: KeepAliveSettings,
  ) {}

  /** True once committed as JSON: the body is {@link finish}'s to write. */
  get committed(): boolean {
    return this.state === 'json';
  }

  /** The answer is a stream: an early commit is `commit`'s (its own heartbeats follow). */
  streamWith(commit: () => void): void {
    this.streamCommit = commit;
  }

  tick(now: number): void {
    const res = this.ctx.res;
    if (res.destroyed || res.writableEnded) return;
    if (this.state === 'json') {
      if (this.pulse?.due(now, this.settings.heartbeatMs)) res.write(' ');
      return;
    }
    if (this.state === 'passed' || now - this.since < this.settings.earlyCommitMs) return;
    if (res.headersSent || this.streamCommit !== undefined) {
      this.state = 'passed';
      this.streamCommit?.();
      return;
    }
    this.commitJson(res);
  }

  private commitJson(res: ServerResponse): void {
    this.state = 'json';
    this.ctx.respond = false;
    res.statusCode = 200;
    res.removeHeader('Content-Length');
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Trailer', STATUS_TRAILER);
    res.flushHeaders();
    res.write(' ');
    this.pulse = new Pulse();
  }

  /** Writes the body of a committed answer and ends it; `status` is the one it would have had. */
  async finish(status: number, body: unknown): Promise<void> {
    const res = this.ctx.res;
    if (res.destroyed || res.writableEnded) return;
    const bytes = Buffer.isBuffer(body) ? body : typeof body === 'string' ? body : JSON.stringify(withStatus(body, status) ?? null);
    res.write(bytes);
    res.addTrailers({ [STATUS_TRAILER]: String(status) });
    await new Promise<void>((resolve) => {
      res.once('close', resolve);
      res.end(resolve);
    });
  }
}

/** An error body with the status it would have had written in it. */
function withStatus(body: unknown, status: number): unknown {
  if (status < 400 || typeof body !== 'object' || body === null || !('error' in body)) return body;
  const { error } = body as { error: unknown };
  return typeof error === 'object' && error !== null ? { ...body, error: { ...error, status } } : body;
}
