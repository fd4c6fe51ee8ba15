import { AsyncLocalStorage } from 'node:async_hooks';
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

const current = new AsyncLocalStorage<KeyTrail>();

/** Runs `fn` with `trail` collecting the keys of every keyed upstream call made inside it. */
export function withKeyTrail<T>(trail: KeyTrail, fn: () => Promise<T>): Promise<T> {
  return current.run(trail, fn);
}

/** The trail of the attempt now running, if one is collecting. */
export function currentKeyTrail(): KeyTrail | undefined {
  return current.getStore();
}
