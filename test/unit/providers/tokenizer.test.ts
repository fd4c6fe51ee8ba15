import { describe, expect, it } from 'vitest';
import { countMessageTokens, countTokens } from '../../../src/billing/tokenizer.js';

describe('tokenizer', () => {
  it('counts o200k tokens and treats special-token strings as text', () => {
    expect(countTokens('')).toBe(0);
    expect(countTokens('Hello')).toBe(1);
    expect(countTokens('Hello world')).toBe(2);
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1);
  });

  it('counts message framing, text, tool calls and images', () => {
    const base = countMessageTokens([{ role: 'user', content: 'Hello world' }]);
    expect(base).toBe(3 + 3 + countTokens('user') + 2);
    const withImage = countMessageTokens([{ role: 'user', content: [{ type: 'text', text: 'Hello world' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }]);
    expect(withImage).toBe(base + 85);
    const withCall = countMessageTokens([
      { role: 'user', content: 'Hello world' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }] },
    ]);
    expect(withCall).toBeGreaterThan(base + 3 + countTokens('lookup'));
  });
});
