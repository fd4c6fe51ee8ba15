import OpenAI, { APIConnectionError, APIError, toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidPng } from '../../fixtures/documents/test-images.js';
import { startEdgeWeb, type EdgeWeb } from '../../fuzz/edge-web.js';

let edge: EdgeWeb;
let client: OpenAI;
beforeAll(async () => {
  edge = await startEdgeWeb();
  client = new OpenAI({ apiKey: edge.funded, baseURL: `${edge.url}/v1`, maxRetries: 0 });
}, 180_000);
afterAll(async () => edge?.close());

/** Tries enough that a response racing the upload (seen about 3 times in 51) would show. */
const TRIES = 30;

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    return err;
  }
}

describe('an upload over the file limit', () => {
  it(`gets its 413 every time, never a connection error (${TRIES} tries with the openai client)`, async () => {
    const small = await toFile(await solidPng(8, 8, { r: 1, g: 1, b: 1 }), 'small.png', { type: 'image/png' });
    const huge = Buffer.alloc(8 * 1024 * 1024 + 512 * 1024, 7);
    const seen: string[] = [];
    for (let i = 0; i < TRIES; i += 1) {
      const image = i % 2 === 0 ? [small, await toFile(huge, 'huge.png', { type: 'image/png' })] : await toFile(huge, 'huge.png', { type: 'image/png' });
      const err = await outcome(client.images.edit({ model: 'local/canvas-image', prompt: 'x', image }));
      if (err instanceof APIConnectionError) seen.push(`try ${i}: connection error ${String(err.cause)}`);
      else if (!(err instanceof APIError)) seen.push(`try ${i}: ${String(err)}`);
      else {
        expect([err.status, err.code, err.param]).toEqual([413, 'payload_too_large', i % 2 === 0 ? 'image[]' : 'image']);
        expect(err.headers?.get('x-should-retry')).toBe('false');
        expect(err.requestID).toMatch(/^req_/);
      }
    }
    expect(seen).toEqual([]);
  });

  it('the same connection serves the next request after a refused upload', async () => {
    const huge = await toFile(Buffer.alloc(9 * 1024 * 1024, 3), 'huge.png', { type: 'image/png' });
    const err = await outcome(client.images.edit({ model: 'local/canvas-image', prompt: 'x', image: huge }));
    expect(err).toBeInstanceOf(APIError);
    expect((await client.models.list()).data.length).toBeGreaterThan(0);
  });
});
