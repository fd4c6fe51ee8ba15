import type { Admission } from './admission-types.js';

/**
 * `inner` with its `admit` replaced: every other member is inner's own, a method bound to it once
 * and handed out again on each read (admission is read on every request, and wrappers stack).
 * A Proxy, so what a particular admission adds (modes, slices, key names) still reads through.
 */
export function withAdmit<A extends Admission>(inner: A, admit: Admission['admit']): A {
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'admit') return admit;
      const known = bound.get(prop);
      if (known !== undefined) return known;
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== 'function') return value;
      const method = value.bind(target);
      bound.set(prop, method);
      return method;
    },
  });
}
