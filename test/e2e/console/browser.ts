import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's chromium (or CHROMIUM_PATH); the tests never download a browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** True when the browser the console tests drive is installed. */
export const hasChromium = existsSync(CHROMIUM_PATH);

/** Where screenshots go (git-ignored). */
export const SCREENS_DIR = fileURLToPath(new URL('../../../test-output/screens/', import.meta.url));

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Launches headless chromium over a pipe (no debugging port). */
export async function launchBrowser(): Promise<Browser> {
  await mkdir(SCREENS_DIR, { recursive: true });
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: ARGS, headless: true });
}

/** A full-page screenshot of the current screen, named for what it shows. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`), fullPage: true });
}
