import { describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { createLocalImages } from '../../../src/providers/local/local-images.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import type { ImageGenerateCall } from '../../../src/providers/images/image-types.js';
import { halfTransparentMask, pixelAt, solidPng } from '../../fixtures/documents/test-images.js';

const images = createLocalImages();
const signal = new AbortController().signal;

function call(overrides: Partial<ImageGenerateCall> = {}): ImageGenerateCall {
  return { upstreamModel: 'canvas', prompt: 'a lighthouse at dusk', n: 1, size: '256x256', signal, ...overrides };
}

function decode(b64: string | undefined): Buffer {
  return Buffer.from(b64 ?? '', 'base64');
}

async function expectInvalid(promise: Promise<unknown>, param: string): Promise<void> {
  const error: unknown = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(GatewayError);
  expect((error as GatewayError).code).toBe('invalid_request');
  expect((error as GatewayError).param).toBe(param);
}

describe('local canvas image generation', () => {
  it('renders a PNG of the requested size', async () => {
    const result = await images.generate(call({ size: '512x256' }));
    const meta = await sharp(decode(result.images[0]?.b64_json)).metadata();
    expect(meta.format).toBe('png');
    expect([meta.width, meta.height]).toEqual([512, 256]);
    expect(result.usage).toEqual({ images: 1, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 });
  });

  it('uses 1024x1024 for auto', async () => {
    const result = await images.generate(call({ size: 'auto' }));
    const meta = await sharp(decode(result.images[0]?.b64_json)).metadata();
    expect([meta.width, meta.height]).toEqual([1024, 1024]);
  });

  it('is deterministic per prompt and differs between prompts', async () => {
    const a1 = await images.generate(call({ prompt: 'red fox' }));
    const a2 = await images.generate(call({ prompt: 'red fox' }));
    const b = await images.generate(call({ prompt: 'blue whale' }));
    expect(a1.images[0]?.b64_json).toBe(a2.images[0]?.b64_json);
    expect(a1.images[0]?.b64_json).not.toBe(b.images[0]?.b64_json);
  });

  it('produces n distinct images', async () => {
    const result = await images.generate(call({ n: 3 }));
    expect(result.images).toHaveLength(3);
    expect(new Set(result.images.map((i) => i.b64_json)).size).toBe(3);
    expect(result.usage.images).toBe(3);
  });

  it('encodes jpeg and webp on request', async () => {
    const jpeg = await images.generate(call({ outputFormat: 'jpeg' }));
    const webp = await images.generate(call({ outputFormat: 'webp' }));
    expect((await sharp(decode(jpeg.images[0]?.b64_json)).metadata()).format).toBe('jpeg');
    expect((await sharp(decode(webp.images[0]?.b64_json)).metadata()).format).toBe('webp');
  });

  it.each(['big', '4096x4096', '100x3000', '0x10', '256x256x2', ' 256x256'])('rejects size %j', async (size) => {
    await expectInvalid(images.generate(call({ size })), 'size');
  });

  it('rejects an n out of range', async () => {
    await expectInvalid(images.generate(call({ n: 0 })), 'n');
    await expectInvalid(images.generate(call({ n: 11 })), 'n');
  });

  it('stops when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(images.generate(call({ signal: controller.signal }))).rejects.toBeInstanceOf(GatewayError);
  });
});

describe('local instant image model', () => {
  it('returns the same cached image per size', async () => {
    const a = await images.generate(call({ upstreamModel: 'instant', size: '64x64', n: 2 }));
    expect(a.images[0]?.b64_json).toBe(a.images[1]?.b64_json);
    const meta = await sharp(decode(a.images[0]?.b64_json)).metadata();
    expect([meta.width, meta.height]).toEqual([64, 64]);
  });

  it('produces a ~4 MB noise image at 2048x2048', async () => {
    const result = await images.generate(call({ upstreamModel: 'instant', size: '2048x2048' }));
    const bytes = decode(result.images[0]?.b64_json);
    expect(bytes.length).toBeGreaterThan(4_000_000);
    expect((await sharp(bytes).metadata()).width).toBe(2048);
  });
});

describe('local canvas image edits', () => {
  const red = solidPng(300, 200, { r: 255, g: 0, b: 0 });
  const blue = solidPng(120, 120, { r: 0, g: 0, b: 255 });

  function edit(refs: Buffer[], extra: { mask?: Buffer } = {}) {
    return images.edit({
      ...call({ size: '256x256', prompt: 'make it pop' }),
      images: refs.map((data, i) => ({ data, filename: `ref${i}.png`, contentType: 'image/png' })),
      ...(extra.mask ? { mask: { data: extra.mask, filename: 'mask.png', contentType: 'image/png' } } : {}),
    });
  }

  it('keeps the reference content at the output size', async () => {
    const result = await edit([await red]);
    const out = decode(result.images[0]?.b64_json);
    const meta = await sharp(out).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256]);
    const [r, g, b] = await pixelAt(out, 128, 20);
    expect(r).toBeGreaterThan(200);
    expect(g).toBeLessThan(50);
    expect(b).toBeLessThan(50);
  });

  it('tiles several references side by side', async () => {
    const result = await edit([await red, await blue]);
    const out = decode(result.images[0]?.b64_json);
    const left = await pixelAt(out, 40, 20);
    const right = await pixelAt(out, 216, 20);
    expect(left[0]).toBeGreaterThan(200);
    expect(right[2]).toBeGreaterThan(200);
    expect(right[0]).toBeLessThan(50);
  });

  it('shows the prompt rendering where the mask is transparent', async () => {
    const result = await edit([await blue], { mask: await halfTransparentMask(256, 256) });
    const out = decode(result.images[0]?.b64_json);
    const kept = await pixelAt(out, 20, 20);
    const replaced = await pixelAt(out, 236, 20);
    expect(kept).toEqual([0, 0, 255]);
    expect(replaced).not.toEqual([0, 0, 255]);
  });

  it('rejects bytes that are not an image', async () => {
    await expectInvalid(edit([Buffer.from('definitely not a png')]), 'image');
  });

  it('rejects a corrupt mask', async () => {
    await expectInvalid(edit([await red], { mask: Buffer.from('nope') }), 'mask');
  });
});
