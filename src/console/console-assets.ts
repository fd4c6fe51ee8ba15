import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, extname, join } from 'node:path';
import { packageRoot } from '../platform/config/index.js';

/** One file the console serves, held in memory (the whole set is tens of kilobytes). */
export interface Asset {
  type: string;
  body: Buffer;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** The chart library's files, taken from node_modules (pinned in package.json), never a CDN. */
const VENDOR_FILES = ['uPlot.iife.min.js', 'uPlot.min.css'];

function load(path: string): Asset {
  return { type: TYPES[extname(path)] ?? 'application/octet-stream', body: readFileSync(path) };
}

/**
 * Reads the console's page, scripts and styles (src/console/public, found from the package
 * root so it works from src/ and dist/) and the vendored chart library, keyed by URL path.
 * Only these exact paths are served: nothing from a request reaches the file system.
 */
export function loadConsoleAssets(): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const publicDir = join(packageRoot(), 'src', 'console', 'public');
  for (const name of readdirSync(publicDir)) {
    if (name === 'index.html') continue;
    if (TYPES[extname(name)]) assets.set(`/console/assets/${name}`, load(join(publicDir, name)));
  }
  const index = load(join(publicDir, 'index.html'));
  assets.set('/console', index);
  assets.set('/console/', index);
  const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot'));
  for (const name of VENDOR_FILES) assets.set(`/console/vendor/${name}`, load(join(uplotDir, name)));
  return assets;
}
