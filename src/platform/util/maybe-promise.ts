/** A value at once, or its promise when getting it had to wait. */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `next` applied to `value`: at once when the value is there, else once its promise resolves.
 * A value there at once costs no promise and no turn of the microtask queue, which on the
 * request path is most of what an `async` layer costs. A throw from `next` is thrown, not
 * rejected: the caller's own async boundary turns it into a rejection.
 */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}
