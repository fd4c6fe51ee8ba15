import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { PROVIDER_FACTORIES } from '../../../src/providers/provider-factories.js';
import type { ProviderKind } from '../../../src/providers/provider.js';
import { buildWorkerProviders, WORKER_FACTORIES } from '../../../workers/worker-providers.js';

const deps = { upstream: createUpstreamClient({ connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000 }) };

/** The job capabilities (images, OCR) an adapter of this kind has, from a factory map. */
function jobCapabilities(factories: typeof PROVIDER_FACTORIES, kind: ProviderKind): string[] {
  const factory = factories[kind];
  if (factory === undefined) return [];
  const adapter = factory({ id: `p-${kind}`, kind, baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'K', apiKey: 'k' }, deps);
  return (['images', 'ocr'] as const).filter((capability) => adapter[capability] !== undefined);
}

describe('worker provider factories', () => {
  it('give every provider kind the same image and OCR capabilities as the web registry', () => {
    const kinds = Object.keys(PROVIDER_FACTORIES) as ProviderKind[];
    expect(kinds.length).toBeGreaterThan(0);
    for (const kind of kinds) expect(jobCapabilities(WORKER_FACTORIES, kind), kind).toEqual(jobCapabilities(PROVIDER_FACTORIES, kind));
  });

  it('leave out chat, which workers never run', () => {
    for (const kind of Object.keys(WORKER_FACTORIES) as ProviderKind[]) {
      const adapter = WORKER_FACTORIES[kind]?.({ id: 'p', kind, baseUrl: 'http://127.0.0.1:9', apiKeyEnv: 'K', apiKey: 'k' }, deps);
      expect(adapter?.chat, kind).toBeUndefined();
    }
  });

  it('build a registry from a providers file with every kind enabled', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'worker-providers-')), 'providers.json');
    const kinds = Object.keys(PROVIDER_FACTORIES) as ProviderKind[];
    const entries = kinds.map((kind) => (kind === 'local' ? { id: 'local', kind } : { id: `p-${kind}`, kind, base_url: 'http://127.0.0.1:9', api_key_env: 'K' }));
    writeFileSync(file, JSON.stringify(entries));
    const registry = await buildWorkerProviders({ providersFile: file, secrets: { K: 'k' }, upstream: { connectMs: 1_000, firstByteMs: 1_000, idleMs: 1_000 } });
    expect(registry.images('local')).toBeDefined();
    expect(registry.ocr('p-mistral-ocr')).toBeDefined();
    expect(() => registry.chat('p-openai')).toThrow();
  });
});
