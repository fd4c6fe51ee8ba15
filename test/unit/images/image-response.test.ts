import { describe, expect, it } from 'vitest';
import { imagesBody, imagesResponse } from '../../../src/images/image-response.js';
import type { ImagesJobResult } from '../../../src/queue/index.js';

const usage = { images: 2, textInputTokens: 3, imageInputTokens: 0, imageOutputTokens: 7 };

const resultOf = (images: ImagesJobResult['images']): ImagesJobResult => ({ images, usage, units: { images: 2 }, cost: '80000000' }) as unknown as ImagesJobResult;

describe('images answer bytes', () => {
  it('are what JSON.stringify writes, for base64 and for anything else a provider sent', () => {
    const response = imagesResponse(1_700_000_000, resultOf([{ b64_json: 'iVBORw0KGgo+/A==' }, { b64_json: 'not "base64"\n', revised_prompt: 'a "cat"\tin é' }]), 80_000_000n);
    const body = imagesBody(response);
    expect(body.toString('utf8')).toBe(JSON.stringify(response));
    expect(JSON.parse(body.toString('utf8'))).toEqual(response);
  });

  it('write base64 held as bytes as the same JSON as its text', () => {
    const text = imagesResponse(1, resultOf([{ b64_json: 'iVBORw0KGgo+/A==', revised_prompt: 'é' }, { b64_json: 'QUJD' }]), 1n);
    const bytes = imagesResponse(1, resultOf([{ b64_json: Buffer.from('iVBORw0KGgo+/A=='), revised_prompt: 'é' }, { b64_json: Buffer.from('QUJD') }]), 1n);
    expect(imagesBody(bytes).equals(imagesBody(text))).toBe(true);
  });

  it('escape stored bytes that could end the JSON string they are put in', () => {
    for (const odd of ['ab"c', 'ab\\c', 'abé']) {
      const body = imagesBody(imagesResponse(1, resultOf([{ b64_json: Buffer.from(odd) }]), 1n));
      expect((JSON.parse(body.toString('utf8')) as { data: Array<{ b64_json: string }> }).data[0]?.b64_json).toBe(odd);
    }
  });
});
