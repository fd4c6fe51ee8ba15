import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/platform/errors/gateway-error.js';
import type { ChatCapability } from '../../../src/providers/chat/chat-types.js';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { createLocalChat } from '../../../src/providers/local/local-chat.js';
import { createOpenAiAdapter } from '../../../src/providers/openai/openai-adapter.js';
import { composeProviderFactory, createProviderRegistry, type LoadedProvider } from '../../../src/providers/registry.js';
import type { OcrCapability } from '../../../src/providers/ocr/ocr-types.js';

const deps = { upstream: createUpstreamClient({ connectMs: 1000, firstByteMs: 1000, idleMs: 1000 }) };
const CONFIGS: LoadedProvider[] = [
  { id: 'local', kind: 'local', enabled: true },
  { id: 'groq', kind: 'openai', baseUrl: 'https://api.groq.test/openai/v1', apiKeyEnv: 'GROQ_API_KEY', apiKey: 'gsk-1', enabled: true },
  { id: 'anthropic', kind: 'anthropic', baseUrl: 'https://api.anthropic.test', apiKeyEnv: 'ANTHROPIC_API_KEY', enabled: false },
];
const fakeOcr: OcrCapability = { recognize: async () => ({ pages: [], usage: { pagesProcessed: 0, docSizeBytes: 0 } }) };

function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
  }
  throw new Error('expected a GatewayError');
}

describe('createProviderRegistry', () => {
  const registry = createProviderRegistry(CONFIGS, {
    local: composeProviderFactory({ chat: () => createLocalChat(), ocr: () => fakeOcr }),
    openai: createOpenAiAdapter,
  }, deps);

  it('builds enabled providers by kind and composes local capabilities', async () => {
    expect(registry.get('groq')).toMatchObject({ id: 'groq', kind: 'openai' });
    const chat: ChatCapability = registry.chat('local');
    const result = await chat.complete({ upstreamModel: 'echo', body: { model: 'local/echo', messages: [{ role: 'user', content: 'hi' }] }, signal: new AbortController().signal });
    expect(result.choices[0]?.message.content).toBe('Echo: hi');
    expect(registry.ocr('local')).toBe(fakeOcr);
    expect(registry.list()).toEqual([
      { id: 'local', kind: 'local', enabled: true },
      { id: 'groq', kind: 'openai', enabled: true },
      { id: 'anthropic', kind: 'anthropic', enabled: false },
    ]);
  });

  it('answers 503 for a provider without credentials, naming no configuration', () => {
    const err = thrown(() => registry.get('anthropic'));
    expect([err.code, err.status]).toEqual(['service_unavailable', 503]);
    expect(err.message).toMatch(/not available right now/);
    expect(err.message).not.toMatch(/ANTHROPIC|API_KEY|credential|anthropic\.test|provider "/i);
    expect(registry.isEnabled('anthropic')).toBe(false);
  });

  it('answers upstream_error for unknown providers and missing capabilities', () => {
    expect(thrown(() => registry.get('nope')).code).toBe('upstream_error');
    expect(thrown(() => registry.images('local')).code).toBe('upstream_error');
    expect(thrown(() => registry.ocr('groq')).message).toContain('does not offer ocr');
  });

  it('fails at construction when an enabled kind has no factory', () => {
    expect(() => createProviderRegistry([{ id: 'm', kind: 'mistral-ocr', baseUrl: 'https://m.test', apiKey: 'k', enabled: true }], {}, deps)).toThrow(/mistral-ocr/);
  });
});
