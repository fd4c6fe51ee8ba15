import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { buildProviderRegistry, PROVIDER_KINDS, providerFactories } from '../../../src/providers/provider-factories.js';
import type { ProviderKind } from '../../../src/providers/provider.js';
import type { ProviderFactories } from '../../../src/providers/registry.js';

const deps = { upstream: createUpstreamClient({ connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000 }) };
const kinds = Object.keys(PROVIDER_KINDS) as ProviderKind[];
const CAPABILITIES = ['chat', 'messages', 'images', 'ocr'] as const;

/** The capabilities an adapter of this kind has, built from a factory table. */
function capabilities(factories: ProviderFactories, kind: ProviderKind): string[] {
  const adapter = factories[kind]?.({ id: `p-${kind}`, kind, baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'K', apiKey: 'k' }, deps);
  if (adapter === undefined) throw new Error(`no factory for ${kind}`);
  expect(adapter.id).toBe(`p-${kind}`);
  expect(adapter.kind).toBe(kind);
  return CAPABILITIES.filter((capability) => adapter[capability] !== undefined);
}

describe('provider factories', () => {
  it('give each kind what it offers', async () => {
    const all = await providerFactories();
    expect(Object.fromEntries(kinds.map((kind) => [kind, capabilities(all, kind)]))).toEqual({
      openai: ['chat'],
      anthropic: ['chat', 'messages'],
      'openai-images': ['images'],
      'mistral-ocr': ['ocr'],
      local: ['chat', 'images', 'ocr'],
    });
  });

  it('build for jobs alone the same image and OCR capabilities, and no chat', async () => {
    const [all, jobs] = await Promise.all([providerFactories(), providerFactories(['jobs'])]);
    for (const kind of kinds) {
      const ofAll = capabilities(all, kind).filter((c) => c === 'images' || c === 'ocr');
      expect(capabilities(jobs, kind), kind).toEqual(ofAll);
    }
  });

  it('build a jobs registry from a providers file with every kind enabled', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'provider-factories-')), 'providers.json');
    const entries = kinds.map((kind) => (kind === 'local' ? { id: 'local', kind } : { id: `p-${kind}`, kind, base_url: 'http://127.0.0.1:9', api_key_env: 'K' }));
    writeFileSync(file, JSON.stringify(entries));
    const registry = await buildProviderRegistry({ providersFile: file, secrets: { K: 'k' }, upstream: { connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000 } }, ['jobs']);
    expect(registry.images('local')).toBeDefined();
    expect(registry.ocr('p-mistral-ocr')).toBeDefined();
    expect(registry.isEnabled('p-openai')).toBe(true);
    expect(() => registry.chat('p-openai')).toThrow(/does not offer chat/);
  });
});
