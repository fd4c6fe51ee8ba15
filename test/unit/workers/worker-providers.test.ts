import { describe, expect, it } from 'vitest';
import { createUpstreamClient } from '../../../src/providers/http/upstream-client.js';
import { PROVIDER_FACTORIES } from '../../../src/providers/provider-factories.js';
import type { ProviderKind } from '../../../src/providers/provider.js';
import { WORKER_FACTORIES } from '../../../workers/worker-providers.js';

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
});
