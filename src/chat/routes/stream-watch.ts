import { GatewayError } from '../../platform/errors/index.js';
import { type ChatStreamEvent, type KeyTrail, keyTrailOf, startKeyTrail, stopKeyTrail } from '../../providers/index.js';
import type { StreamLimits } from './stream-limits.js';

/** An event the client sees something of: text, reasoning, tool calls, a finish, or the final usage (a partial count, like Anthropic's at the start, says nothing yet). */
function isVisible(event: ChatStreamEvent): boolean {
  if (event.kind === 'usage') return event.partial !== true;
  if (event.kind === 'skipped') return false;
  return event.choices.some(({ delta, finish_reason }) => finish_reason !== null || !!delta.content || !!delta.reasoning || !!delta.refusal || (delta.tool_calls?.length ?? 0) > 0);
}

/** An event of the answer itself (not reasoning): from then on the stream is expected to flow. */
function isAnswer(event: ChatStreamEvent): boolean {
  if (event.kind !== 'delta') return event.kind === 'usage' && event.partial !== true;
  return event.choices.some(({ delta, finish_reason }) => finish_reason !== null || !!delta.content || !!delta.refusal || (delta.tool_calls?.length ?? 0) > 0);
}

function expiry(detail: string): GatewayError {
  return new GatewayError('upstream_timeout', `The upstream provider ${detail}`, { upstream: { transport: 'timeout' } });
}

/**
 * Watches one upstream stream's silences and ends its call when one runs past its limit, with
 * `upstream_timeout` (a timeout before the answer's first byte, so the route runner moves on;
 * after it, a stall the stream's continuation takes over). The call runs under this watch's
 * own signal, which also follows the request's (so the keys it uses still land on the
 * attempt's key trail). Under a first-token limit, events before the first visible one (a bare
 * `role` chunk, Anthropic's `message_start`) are held back until it arrives: until then the
 * stream is not yet the answer, and a silence or a break moves it to the next route. The stall
 * clock runs only while the upstream is awaited, never while the client is slow.
 */
export class StreamWatch {
  private readonly controller = new AbortController();
  private readonly trail: KeyTrail | undefined;
  private firstTimer: NodeJS.Timeout | undefined;
  private stallTimer: NodeJS.Timeout | undefined;
  /** When the pending read of the upstream began, once the answer flows; undefined between reads. */
  private waitingSince: number | undefined;
  /** Nothing is held back (any more): the first visible event arrived, or there is no first-token limit to fail over on. */
  private shown: boolean;
  private answering = false;
  private expired: GatewayError | undefined;

  constructor(
    private readonly parent: AbortSignal,
    private readonly limits: StreamLimits,
  ) {
    if (parent.aborted) this.controller.abort(parent.reason);
    else parent.addEventListener('abort', this.follow, { once: true });
    this.shown = limits.firstTokenMs === undefined;
    this.trail = keyTrailOf(parent);
    if (this.trail !== undefined) startKeyTrail(this.controller.signal, this.trail);
    if (limits.firstTokenMs !== undefined) {
      const seconds = Math.round(limits.firstTokenMs / 100) / 10;
      this.firstTimer = setTimeout(() => this.expire(`sent no token within ${seconds} s`), limits.firstTokenMs);
      this.firstTimer.unref();
    }
  }

  /** The signal the upstream call runs under. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The upstream's events, as long as it keeps its limits (see the class). */
  async *events(source: AsyncIterable<ChatStreamEvent>): AsyncGenerator<ChatStreamEvent> {
    const iterator = source[Symbol.asyncIterator]();
    const held: ChatStreamEvent[] = [];
    try {
      for (let step = await this.read(iterator); !step.done; step = await this.read(iterator)) {
        if (this.shown) {
          yield step.value;
          continue;
        }
        held.push(step.value);
        if (!isVisible(step.value)) continue;
        this.shown = true;
        yield* held.splice(0);
      }
      yield* held;
    } finally {
      this.stop();
      await iterator.return?.().catch(() => undefined);
    }
  }

  /** Stops watching: timers, the request's signal and the key trail (call once the call is over). */
  dispose(): void {
    this.stop();
    this.parent.removeEventListener('abort', this.follow);
    if (this.trail !== undefined) stopKeyTrail(this.controller.signal, this.trail);
  }

  private readonly follow = (): void => {
    this.controller.abort(this.parent.reason);
  };

  private async read(iterator: AsyncIterator<ChatStreamEvent>): Promise<IteratorResult<ChatStreamEvent>> {
    if (this.answering) this.awaitWithin();
    try {
      const step = await iterator.next();
      if (!step.done) this.seen(step.value);
      return step;
    } catch (err) {
      // When a limit ended the call, that is the cause, whatever the transport made of it.
      throw this.expired ?? err;
    } finally {
      this.waitingSince = undefined;
    }
  }

  /** Notes an event: the first visible one ends the first-token wait, the first of the answer starts the stall clock. */
  private seen(event: ChatStreamEvent): void {
    if (this.firstTimer !== undefined && isVisible(event)) {
      clearTimeout(this.firstTimer);
      this.firstTimer = undefined;
    }
    if (!this.answering && this.limits.stallMs !== undefined && isAnswer(event)) this.answering = true;
  }

  /** Starts the stall clock for one read; one timer serves every read, re-armed only when it fires. */
  private awaitWithin(): void {
    const limit = this.limits.stallMs as number;
    this.waitingSince = performance.now();
    if (this.stallTimer !== undefined) return;
    const check = (): void => {
      this.stallTimer = undefined;
      if (this.waitingSince === undefined) return;
      const silent = performance.now() - this.waitingSince;
      if (silent >= limit) this.expire(`stalled mid-answer: nothing for ${Math.round(silent / 100) / 10} s`);
      else this.arm(check, limit - silent);
    };
    this.arm(check, limit);
  }

  private arm(check: () => void, ms: number): void {
    this.stallTimer = setTimeout(check, ms);
    this.stallTimer.unref();
  }

  private expire(detail: string): void {
    this.expired = expiry(detail);
    this.controller.abort(this.expired);
  }

  private stop(): void {
    if (this.firstTimer !== undefined) clearTimeout(this.firstTimer);
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.firstTimer = undefined;
    this.stallTimer = undefined;
  }
}
