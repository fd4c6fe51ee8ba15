import { GatewayError } from '../../platform/errors/index.js';
import type { ClientDeparture } from '../wire/client-channel.js';
import type { GraceReads } from '../settle/grace-reads.js';

/** Time bounds of one request's upstream call. */
export interface UpstreamTiming {
  /** Longest the call may run; then it ends with `upstream_timeout` and the usage produced. */
  readonly maxRequestMs: number;
  /** How long a stream whose client left keeps reading for the upstream's usage report. */
  readonly usageGraceMs: number;
  /** A stream's longest wait for its first token when another route could answer (see streamLimits); absent: none. */
  readonly firstTokenMs?: number;
  /** A stream's longest silence once its answer flows; absent: only the transport's idle limit. */
  readonly stallMs?: number;
}

/** What happens when a stream's client leaves: its slot is freed, and reading on takes a permit. */
export interface ClientLeave {
  /** Called once when the client goes away (a stream frees its concurrent-stream slot here). */
  readonly onLeave?: () => void;
  /** The process's bound on streams read after their client left; absent: unbounded. */
  readonly graceReads?: GraceReads;
}

/** The signal an upstream call runs under, and how to stop watching. */
export interface UpstreamSignal {
  readonly signal: AbortSignal;
  dispose(): void;
}

/**
 * The upstream call's abort signal. A client that leaves stops the call, at once for a
 * non-streamed request (nothing will be delivered) or, for a stream, after `usageGraceMs`, so
 * the upstream's usage report, which OpenAI sends only at the very end, can still arrive and
 * be billed instead of a local count. That reading needs a permit of the process's grace
 * bound, held until the call ends; without one the call stops at once. Any request ends after
 * `maxRequestMs`, so no hold and no stream slot are held forever.
 */
export function upstreamSignal(client: ClientDeparture, timing: UpstreamTiming, stream: boolean, leave: ClientLeave = {}): UpstreamSignal {
  // The call's one controller; the client's departure is only listened to.
  const controller = new AbortController();
  let permit: (() => void) | undefined;
  // The reason is made when the timer fires: an error built per request captures a stack trace.
  const abortAfter = (ms: number, reason: () => unknown): NodeJS.Timeout => {
    const timer = setTimeout(() => controller.abort(reason()), ms);
    timer.unref();
    return timer;
  };
  const deadline = abortAfter(timing.maxRequestMs, () => new GatewayError('upstream_timeout', `The request ran longer than the ${Math.round(timing.maxRequestMs / 1000)} s a request may run`));
  let grace: NodeJS.Timeout | undefined;
  const onClientGone = (): void => {
    leave.onLeave?.();
    if (stream && timing.usageGraceMs > 0) permit = leave.graceReads === undefined ? () => undefined : leave.graceReads.take();
    if (permit !== undefined) grace = abortAfter(timing.usageGraceMs, () => client.reason);
    else controller.abort(client.reason);
  };
  if (client.aborted) onClientGone();
  else client.addEventListener('abort', onClientGone, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(deadline);
      if (grace !== undefined) clearTimeout(grace);
      client.removeEventListener('abort', onClientGone);
      permit?.();
    },
  };
}
