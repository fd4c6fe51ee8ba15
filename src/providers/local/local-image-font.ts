import { createRequire } from 'node:module';
import type { GlobalFonts } from '@napi-rs/canvas';

/** Family name under which the bundled DejaVu Sans font is registered with the canvas. */
export const LOCAL_IMAGE_FONT_FAMILY = 'FareboxDejaVuSans';

let registered = false;

/**
 * Registers DejaVu Sans from the `dejavu-fonts-ttf` package with the canvas's fonts, once per
 * process. The font ships in node_modules, so rendering never depends on whatever fonts the host
 * happens to have.
 */
export function ensureLocalImageFont(fonts: typeof GlobalFonts): string {
  if (!registered) {
    const require = createRequire(import.meta.url);
    const fontPath = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
    fonts.registerFromPath(fontPath, LOCAL_IMAGE_FONT_FAMILY);
    registered = true;
  }
  return LOCAL_IMAGE_FONT_FAMILY;
}
