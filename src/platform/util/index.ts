/**
 * Small shared helpers: ids, canonical JSON, caches.
 * This file is the module's face: code outside the module imports from here only.
 */
export { BoundedMemo } from './bounded-memo.js';
export { canonicalJson } from './canonical-json.js';
export { newId } from './ids.js';
export { loadCanvas, loadSharp, loadTesseract } from './load-native.js';
export { loadPdfjs } from './load-pdfjs.js';
export { andThen, type MaybePromise } from './maybe-promise.js';
export { ReadThroughCache } from './read-through-cache.js';
