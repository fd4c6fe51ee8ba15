import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'tesseract.js';
import { GatewayError } from '../../platform/errors/index.js';
import { loadTesseract } from '../../platform/util/index.js';

/** Where the English language data lives; defaults to the @tesseract.js-data/eng package. */
export interface TesseractOptions {
  /** Folder holding `eng.traineddata.gz`. */
  langPath?: string;
}

interface LanguagePackage {
  langPath: string;
  gzip: boolean;
}

function isLanguagePackage(value: unknown): value is LanguagePackage {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record['langPath'] === 'string' && typeof record['gzip'] === 'boolean';
}

/** Reads the bundled language package's own description of its folder and compression. */
function bundledLanguage(): LanguagePackage {
  const require = createRequire(import.meta.url);
  const pkg: unknown = require('@tesseract.js-data/eng');
  if (!isLanguagePackage(pkg)) {
    throw new GatewayError('internal_error', 'The bundled OCR language package has an unexpected shape');
  }
  return pkg;
}

let workerPromise: Promise<Worker> | null = null;

/**
 * Starts the tesseract worker thread. Everything comes from node_modules: in Node, tesseract.js
 * loads its worker script and WASM core with require(), and langPath is a local folder, so
 * nothing is fetched. The cache is disabled (and pointed at a private temp dir) so concurrent
 * processes never read each other's half-written files.
 */
async function startWorker(options: TesseractOptions): Promise<Worker> {
  const bundled = bundledLanguage();
  const { createWorker, OEM } = await loadTesseract();
  return createWorker('eng', OEM.LSTM_ONLY, {
    langPath: options.langPath ?? bundled.langPath,
    gzip: bundled.gzip,
    cachePath: mkdtempSync(join(tmpdir(), 'farebox-tesseract-')),
    cacheMethod: 'none',
    logger: () => undefined,
    errorHandler: () => undefined,
  });
}

/** The process-wide tesseract worker, created on first use and reused afterwards. */
function sharedWorker(options: TesseractOptions): Promise<Worker> {
  if (workerPromise === null) {
    const started = startWorker(options);
    workerPromise = started;
    // A failed start must not poison every later call.
    started.catch(() => {
      if (workerPromise === started) workerPromise = null;
    });
  }
  return workerPromise;
}

/** Recognises the text of one PNG with the shared worker (jobs queue inside the worker). */
export async function recognizePng(png: Buffer, options: TesseractOptions = {}): Promise<string> {
  let worker: Worker;
  try {
    worker = await sharedWorker(options);
  } catch (error) {
    throw new GatewayError('internal_error', 'The local OCR engine could not start', { cause: error });
  }
  try {
    const { data } = await worker.recognize(png);
    return data.text;
  } catch (error) {
    throw new GatewayError('invalid_request', 'The document image could not be read', {
      param: 'document',
      cause: error,
    });
  }
}

/** Stops the shared tesseract worker (call on shutdown); a later call starts a new one. */
export async function terminateLocalOcr(): Promise<void> {
  const pending = workerPromise;
  workerPromise = null;
  if (pending === null) return;
  const worker = await pending.catch(() => null);
  await worker?.terminate();
}
