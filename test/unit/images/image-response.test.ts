import { describe, expect, it } from 'vitest';
import { imagesJson, imagesResponse } from '../../../src/images/image-response.js';
import type { ImagesJobResult } from '../../../src/queue/index.js';

const usage = { images: 2, textInputTokens: 3, imageInputTokens: 0, imageOutputTokens: 7 };

describe('images answer text', () => {
  it('is what JSON.stringify writes, for base64 and for anything else a provider sent', () => {
    const result = {
      images: [{ b64_json: 'iVBORw0KGgo+/A==' }, { b64_json: 'not "base64"\n', revised_prompt: 'a "cat"\tin é' }],
      usage,
      units: { images: 2 },
      cost: '80000000',
    } as unknown as ImagesJobResult;
    const response = imagesResponse(1_700_000_000, result, 80_000_000n);
    expect(imagesJson(response)).toBe(JSON.stringify(response));
    expect(JSON.parse(imagesJson(response))).toEqual(response);
  });
});
