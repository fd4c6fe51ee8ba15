import { setFlagsFromString } from 'node:v8';

/** Calls before V8 compiles a function with TurboFan, its fastest tier (V8's own: 3,000). */
const TURBOFAN_AFTER_CALLS = 500;

/**
 * Lowers how many calls a function makes before TurboFan compiles it. V8 counts them again from
 * zero each time one of the function's inline caches meets a new object shape, and most of a
 * web's request path runs once or twice per request over objects of many shapes, so at 3,000
 * much of it stayed on Maglev's slower code however long the web ran. Set from here, not the
 * command line: Node 20 (V8 11), which the package supports, has no such flag and would refuse
 * to start; there this does nothing.
 */
function tierUpSooner(): void {
  if (Number(process.versions.v8.split('.')[0]) >= 12) setFlagsFromString(`--invocation-count-for-turbofan=${TURBOFAN_AFTER_CALLS}`);
}

// On import: the runtime's face exports this first, and the web's entry imports the face first.
tierUpSooner();
