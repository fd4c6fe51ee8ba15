import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnWeb, type WebProcess } from '../../../helpers/spawn-web.js';
import { testEnv } from '../../../helpers/test-gateway.js';

/** The shared objects sharp (libvips) and @napi-rs/canvas (Skia) map into a process that loads them. */
const NATIVE_IMAGE_LIBRARIES = /libvips-cpp\.so|sharp-linux-[^/]*\.node|skia\.[^/]*\.node/g;

/** The native image libraries mapped into a process, by file name. */
async function mappedImageLibraries(pid: number | 'self'): Promise<string[]> {
  const maps = await readFile(`/proc/${pid}/maps`, 'utf8');
  return [...new Set(maps.match(NATIVE_IMAGE_LIBRARIES) ?? [])].sort();
}

let web: WebProcess;
beforeAll(async () => {
  web = await spawnWeb(testEnv({}));
});
afterAll(async () => {
  await web?.stop();
});

describe('a web that has checked no image', () => {
  it('has not loaded the native image libraries (they load on first use)', async () => {
    expect((await fetch(`${web.url}/readyz`)).status).toBe(200);
    expect(await mappedImageLibraries(web.pid)).toEqual([]);
  });

  it('would see them mapped once they are loaded (the check itself works)', async () => {
    await Promise.all([import('sharp'), import('@napi-rs/canvas')]);
    const mine = await mappedImageLibraries('self');
    expect(mine.some((name) => name.startsWith('libvips'))).toBe(true);
    expect(mine.some((name) => name.startsWith('skia'))).toBe(true);
  });
});
