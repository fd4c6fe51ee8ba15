import { describe, expect, it } from 'vitest';
import { countTokens } from '../../../src/billing/tokenizer.js';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import { parseEmbeddingInput } from '../../../src/embeddings/embeddings-input.js';
import { countInputTokens, MAX_REQUEST_TOKENS } from '../../../src/embeddings/embeddings-tokens.js';

async function refusal(run: () => Promise<unknown>): Promise<GatewayError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('no refusal');
}

describe('embedding input token counts', () => {
  it('equal the gateway tokenizer’s count, long unbroken pieces and surrogate pairs at slice edges included', async () => {
    const texts = [
      'Plain English text, with punctuation.',
      'x'.repeat(700),
      `${'a'.repeat(255)}🙂${'b'.repeat(300)}`,
      '数据'.repeat(400),
      '  lots   of\n\n whitespace\t\t',
      '<|endoftext|> is plain text here',
    ];
    const counts = await countInputTokens(parseEmbeddingInput(texts), 100_000);
    expect(counts).toEqual(texts.map((t) => countTokens(t)));
  });

  it('counts token-id lists by their length', async () => {
    expect(await countInputTokens(parseEmbeddingInput([[1, 2, 3], [4]]), 10)).toEqual([3, 1]);
    expect(await countInputTokens(parseEmbeddingInput([7, 8, 9]), 10)).toEqual([3]);
  });

  it('names the first input over the context, for texts and token lists', async () => {
    const text = await refusal(() => countInputTokens(parseEmbeddingInput(['short', 'word '.repeat(50)]), 20));
    expect(text.param).toBe('input[1]');
    const tokens = await refusal(() => countInputTokens(parseEmbeddingInput([[1], [1, 2, 3]]), 2));
    expect(tokens.param).toBe('input[1]');
    const lone = await refusal(() => countInputTokens(parseEmbeddingInput('word '.repeat(50)), 20));
    expect(lone.param).toBe('input');
  });

  it('refuses a request over the total token limit on `input`', async () => {
    const per = 8_000;
    const inputs = Array.from({ length: Math.ceil(MAX_REQUEST_TOKENS / per) + 1 }, () => Array.from({ length: per }, () => 1));
    const err = await refusal(() => countInputTokens(parseEmbeddingInput(inputs), 8_192));
    expect(err.param).toBe('input');
  });
});

describe('embedding input shapes', () => {
  it.each([
    [[], 'input'],
    [[1, 'a'], 'input[0]'],
    [['a', [1]], 'input[1]'],
    [[[]], 'input[0]'],
    [[[1.5]], 'input[0][0]'],
    [{ text: 'a' }, 'input'],
    [null, 'input'],
  ])('refuses %j with param %s', (input, param) => {
    let caught: unknown;
    try {
      parseEmbeddingInput(input);
    } catch (err) {
      caught = err;
    }
    expect((caught as GatewayError).param).toBe(param);
  });
});
