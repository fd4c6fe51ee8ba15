import type { Admission } from './admission-types.js';

/**
 * `inner` with its `admit` replaced: every other member is inner's own, each method bound to it
 * once, each other property (fields, getters) read through live, so what a particular
 * admission adds (modes, slices, key names) still reads through. A plain object, built once:
 * admission is read on every request and wrappers stack, and a Proxy's trap on every read cost
 * tens of nanoseconds a read where a plain property costs one.
 */
export function withAdmit<A extends Admission>(inner: A, admit: Admission['admit']): A {
  const wrapper: Record<PropertyKey, unknown> = { admit };
  for (let layer: object | null = inner; layer !== null && layer !== Object.prototype; layer = Object.getPrototypeOf(layer) as object | null) {
    for (const prop of Reflect.ownKeys(layer)) {
      if (prop === 'constructor' || Object.hasOwn(wrapper, prop)) continue;
      const value = Object.getOwnPropertyDescriptor(layer, prop)?.value as unknown;
      if (typeof value === 'function') wrapper[prop] = value.bind(inner);
      else Object.defineProperty(wrapper, prop, { get: () => Reflect.get(inner, prop), enumerable: true });
    }
  }
  return wrapper as A;
}
