type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/**
 * Built-ins that pdfjs-dist's legacy build replaces with core-js polyfills when it loads. The
 * replacements only fix spec corner cases Node does not need, and they sit on every hot path
 * of the process: with them, JSON.stringify of a 15 MB image response took 1.9 s instead of
 * 48 ms and a small chat body 10 µs instead of 1.3 µs, and every Array#push ran through a JS
 * function. Their native versions are put back once pdfjs has loaded. (Polyfills that only
 * add methods Node lacks are left in place.)
 */
const KEPT_NATIVE: ReadonlyArray<readonly [object, string]> = [
  [JSON, 'stringify'],
  [JSON, 'parse'],
  [Array.prototype, 'push'],
  [Function.prototype, 'toString'],
];

let loading: Promise<Pdfjs> | undefined;

async function importKeepingNatives(): Promise<Pdfjs> {
  const saved = KEPT_NATIVE.map(([owner, name]) => [owner, name, Object.getOwnPropertyDescriptor(owner, name)] as const);
  try {
    return await import('pdfjs-dist/legacy/build/pdf.mjs');
  } finally {
    for (const [owner, name, descriptor] of saved) if (descriptor) Object.defineProperty(owner, name, descriptor);
  }
}

/** pdfjs-dist's legacy (Node) build, loaded on first use with the built-ins above left native. */
export function loadPdfjs(): Promise<Pdfjs> {
  loading ??= importKeepingNatives().catch((err: unknown) => {
    loading = undefined;
    throw err;
  });
  return loading;
}
