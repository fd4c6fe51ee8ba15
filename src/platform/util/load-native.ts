/**
 * Native image libraries, loaded on first use. Each maps a large shared library into the
 * process when it is imported (libvips for sharp, Skia for the canvas, about 36 MB of resident
 * memory between them and tesseract.js), and a web only needs them when it checks an uploaded
 * image or document, which most webs rarely or never do: the workers draw, edit and read.
 */

type Sharp = (typeof import('sharp'))['default'];
type Canvas = typeof import('@napi-rs/canvas');
type Tesseract = typeof import('tesseract.js');

/** sharp (libvips), loaded on first use. */
export async function loadSharp(): Promise<Sharp> {
  return (await import('sharp')).default;
}

/** @napi-rs/canvas (Skia), loaded on first use. */
export function loadCanvas(): Promise<Canvas> {
  return import('@napi-rs/canvas');
}

/** tesseract.js, loaded on first use. */
export function loadTesseract(): Promise<Tesseract> {
  return import('tesseract.js');
}
