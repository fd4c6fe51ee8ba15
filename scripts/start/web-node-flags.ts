/**
 * V8 flags every production web runs with (`npm run start:web`, the image, the compose file;
 * the bench runs its web with them too, and a test keeps the four in step).
 *
 * TurboFan, V8's fastest tier, compiles a function after 3,000 calls by default, counted again
 * from zero each time one of its inline caches meets a new object shape. Most of a web's
 * request path runs once or twice per request over objects of many shapes, so much of it never
 * got there and ran on Maglev's slower code for good: in the bench, at 500 calls a non-streamed
 * chat took about 14 % fewer event-loop instructions, where a five times longer warm-up at the
 * default changed nothing.
 */
export const WEB_NODE_FLAGS: readonly string[] = ['--invocation-count-for-turbofan=500'];
