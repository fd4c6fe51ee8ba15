import type { GatewayError } from '../../platform/errors/index.js';

/** One key a request was sent with: the variable that names it, and the refusal if it was refused. */
export interface KeyTry {
  readonly env: string;
  refusal?: GatewayError;
}

/**
 * The keys one attempt of a request went through, in order, by variable name (never value).
 * The key pool writes it; the route runner reads it into the request's attempt records.
 */
export class KeyTrail {
  readonly tries: KeyTry[] = [];

  /** A key was picked for a call. */
  tried(env: string): KeyTry {
    const entry: KeyTry = { env };
    this.tries.push(entry);
    return entry;
  }

  /** The key of the last call, if any key was used. */
  last(): string | null {
    return this.tries.at(-1)?.env ?? null;
  }
}

/**
 * The trail of the attempt each upstream signal runs for. Every adapter hands its call's
 * signal to the client as it is, so the key pool finds the trail from the signal it is given;
 * a request's attempts run one after another, so a signal serves one attempt at a time.
 * AsyncLocalStorage would carry the trail too, but on Node 20 it turns on promise hooks for
 * the whole process: every promise then carries async ids (about 5.7 KB of heap per open
 * stream, and CPU per request) for one lookup per upstream call.
 */
const trails = new WeakMap<AbortSignal, KeyTrail>();

/**
 * Collects into `trail` the keys of every keyed upstream call made with `signal`, until
 * {@link stopKeyTrail}. The route runner brackets each attempt with the two.
 */
export function startKeyTrail(signal: AbortSignal, trail: KeyTrail = new KeyTrail()): KeyTrail {
  trails.set(signal, trail);
  return trail;
}

/** Ends `trail`'s collecting for `signal` (a later attempt's trail is left in place). */
export function stopKeyTrail(signal: AbortSignal, trail: KeyTrail): void {
  if (trails.get(signal) === trail) trails.delete(signal);
}

/** The trail of the attempt running with `signal`, if one is collecting. */
export function keyTrailOf(signal: AbortSignal): KeyTrail | undefined {
  return trails.get(signal);
}
