import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { createOpenAiImagesAdapter } from '../../../src/providers/openai-images/openai-images-adapter.js';
import type { ImageEditCall, ImageGenerateCall, ImagesCapability } from '../../../src/providers/images/image-types.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { FAKE_PNG_B64, startFakeOpenAiImages, type FakeOpenAiImages } from '../../fixtures/upstreams/fake-openai-images.js';

let fake: FakeOpenAiImages;
let agent: Agent;
let images: ImagesCapability;
const signal = new AbortController().signal;

beforeAll(async () => {
  fake = await startFakeOpenAiImages();
  agent = new Agent();
  const client = createUpstreamClient({ connectMs: 2000, firstByteMs: 5000, idleMs: 5000, totalMs: 10_000 }, agent);
  const adapter = createOpenAiImagesAdapter(
    { id: 'openai-images', kind: 'openai-images', baseUrl: fake.baseUrl, apiKey: 'sk-test-secret-123456' },
    { upstream: client },
  );
  if (adapter.images === undefined) throw new Error('adapter has no images capability');
  images = adapter.images;
});

afterAll(async () => {
  await fake.close();
  await agent.close();
});

beforeEach(() => {
  fake.requests.length = 0;
  fake.scenario = 'ok';
});

function generation(overrides: Partial<ImageGenerateCall> = {}): ImageGenerateCall {
  return { upstreamModel: 'gpt-image-1', prompt: 'a red fox', n: 2, size: '1024x1024', signal, ...overrides };
}

async function errorOf(promise: Promise<unknown>): Promise<GatewayError> {
  const error: unknown = await promise.then(() => new Error('expected failure'), (e: unknown) => e);
  if (!(error instanceof GatewayError)) throw error;
  return error;
}

describe('openai-images generations', () => {
  it('sends the GPT image request and maps token usage', async () => {
    const result = await images.generate(generation({ quality: 'high', background: 'opaque', outputFormat: 'webp' }));
    const request = fake.requests[0];
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe('/v1/images/generations');
    expect(request?.headers.authorization).toBe('Bearer sk-test-secret-123456');
    expect(request?.json).toEqual({
      model: 'gpt-image-1',
      prompt: 'a red fox',
      n: 2,
      size: '1024x1024',
      quality: 'high',
      background: 'opaque',
      output_format: 'webp',
    });
    expect(result.images).toEqual([{ b64_json: FAKE_PNG_B64 }, { b64_json: FAKE_PNG_B64 }]);
    expect(result.usage).toEqual({ images: 2, textInputTokens: 10, imageInputTokens: 40, imageOutputTokens: 8320 });
  });

  it('asks DALL·E for base64 and bills it per image', async () => {
    const result = await images.generate(generation({ upstreamModel: 'dall-e-3', n: 1, outputFormat: 'png', background: 'auto' }));
    expect(fake.requests[0]?.json).toEqual({
      model: 'dall-e-3',
      prompt: 'a red fox',
      n: 1,
      size: '1024x1024',
      response_format: 'b64_json',
    });
    expect(result.images).toEqual([{ b64_json: FAKE_PNG_B64, revised_prompt: 'a revised prompt' }]);
    expect(result.usage).toEqual({ images: 1, textInputTokens: 0, imageInputTokens: 0, imageOutputTokens: 0 });
  });
});

describe('openai-images edits', () => {
  const png = Buffer.from(FAKE_PNG_B64, 'base64');
  function editCall(overrides: Partial<ImageEditCall> = {}): ImageEditCall {
    return {
      ...generation({ n: 1, size: '1024x1536' }),
      images: [
        { data: png, filename: 'a.png', contentType: 'image/png' },
        { data: Buffer.from('jpeg-bytes'), filename: 'b.jpg', contentType: 'image/jpeg' },
      ],
      mask: { data: png, filename: 'mask.png', contentType: 'image/png' },
      ...overrides,
    };
  }

  it('sends a multipart body with image[] parts and a mask', async () => {
    const result = await images.edit(editCall());
    const request = fake.requests[0];
    expect(request?.path).toBe('/v1/images/edits');
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const form = request?.form;
    expect(form?.get('model')).toBe('gpt-image-1');
    expect(form?.get('prompt')).toBe('a red fox');
    expect(form?.get('n')).toBe('1');
    expect(form?.get('size')).toBe('1024x1536');
    const parts = form?.getAll('image[]') as File[];
    expect(parts.map((p) => [p.name, p.type])).toEqual([
      ['a.png', 'image/png'],
      ['b.jpg', 'image/jpeg'],
    ]);
    expect(Buffer.from(await (parts[1] as File).arrayBuffer()).toString()).toBe('jpeg-bytes');
    const mask = form?.get('mask') as File;
    expect(Buffer.from(await mask.arrayBuffer()).equals(png)).toBe(true);
    expect(form?.get('response_format')).toBeNull();
    expect(result.usage.imageInputTokens).toBe(40);
  });

  it('sends DALL·E 2 a single image part and asks for base64', async () => {
    await images.edit(editCall({ upstreamModel: 'dall-e-2' }));
    const form = fake.requests[0]?.form;
    expect(form?.getAll('image')).toHaveLength(1);
    expect(form?.getAll('image[]')).toHaveLength(0);
    expect(form?.get('response_format')).toBe('b64_json');
  });
});

describe('openai-images errors', () => {
  it('maps 429 to rate_limited with Retry-After', async () => {
    fake.scenario = 'rate_limited';
    const error = await errorOf(images.generate(generation()));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterSeconds).toBe(7);
  });

  it('maps 500 to upstream_error', async () => {
    fake.scenario = 'server_error';
    expect((await errorOf(images.generate(generation()))).code).toBe('upstream_error');
  });

  it('maps 400 to invalid_request carrying the vendor message', async () => {
    fake.scenario = 'bad_request';
    const error = await errorOf(images.generate(generation({ size: '999x999' })));
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain("Invalid value: '999x999'");
    expect(error.message).not.toContain('sk-test-secret');
  });
});
