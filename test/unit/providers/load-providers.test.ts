import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadProviders, ProvidersFileError } from '../../../src/providers/load-providers.js';

const DEFAULT_FILE = readFileSync(new URL('../../../src/providers/providers.json', import.meta.url), 'utf8');

function problems(text: string): readonly string[] {
  try {
    loadProviders(text, {});
  } catch (err) {
    if (err instanceof ProvidersFileError) return err.problems;
    throw err;
  }
  throw new Error('expected a ProvidersFileError');
}

describe('loadProviders', () => {
  it('loads the default file: local enabled, keyed providers enabled only with their key', () => {
    const providers = loadProviders(DEFAULT_FILE, { OPENAI_API_KEY: 'sk-openai', MISTRAL_API_KEY: '  ', GROQ_API_KEY: '' });
    const byId = new Map(providers.map((p) => [p.id, p]));
    expect([...byId.keys()]).toEqual(['local', 'openai', 'anthropic', 'mistral', 'groq', 'deepseek', 'google', 'xai', 'openai-images', 'mistral-ocr']);
    expect(byId.get('local')).toEqual({ id: 'local', kind: 'local', enabled: true });
    expect(byId.get('openai')).toEqual({ id: 'openai', kind: 'openai', baseUrl: 'https://api.openai.com/v1', apiKeyEnv: 'OPENAI_API_KEY', apiKey: 'sk-openai', outputLimitField: 'max_completion_tokens', responsesApi: true, enabled: true });
    expect(byId.get('openai-images')?.enabled).toBe(true);
    expect(byId.get('anthropic')).toMatchObject({ kind: 'anthropic', enabled: false });
    expect(byId.get('anthropic')).not.toHaveProperty('apiKey');
    expect(byId.get('mistral')?.enabled).toBe(false);
    expect(byId.get('groq')?.enabled).toBe(false);
    expect(byId.get('mistral-ocr')).toMatchObject({ kind: 'mistral-ocr', baseUrl: 'https://api.mistral.ai' });
  });

  it('takes prefill by kind (anthropic yes, the others no) unless the file says otherwise', () => {
    const providers = loadProviders(JSON.stringify([
      { id: 'claude', kind: 'anthropic', base_url: 'https://a.test', api_key_env: 'K' },
      { id: 'claude-no', kind: 'anthropic', base_url: 'https://a.test', api_key_env: 'K', prefill: false },
      { id: 'oai', kind: 'openai', base_url: 'https://o.test', api_key_env: 'K' },
      { id: 'vllm', kind: 'openai', base_url: 'https://v.test', api_key_env: 'K', prefill: true },
    ]), { K: 'sk-k' });
    expect(providers.map((p) => [p.id, p.prefill === true])).toEqual([['claude', true], ['claude-no', false], ['oai', false], ['vllm', true]]);
    expect(problems(JSON.stringify([{ id: 'x', kind: 'local', prefill: 'yes' }]))[0]).toMatch(/^0\.prefill/);
  });

  it('lists every problem of a bad file', () => {
    const found = problems(JSON.stringify([
      { id: 'Bad Id', kind: 'openai', base_url: 'https://x.test', api_key_env: 'X' },
      { id: 'a', kind: 'vertex', base_url: 'https://x.test', api_key_env: 'X' },
      { id: 'b', kind: 'openai' },
      { id: 'c', kind: 'openai', base_url: 'ftp://x.test', api_key_env: 'X', extra: 1 },
      { id: 'b', kind: 'local' },
    ]));
    expect(found.some((p) => p.startsWith('0.id'))).toBe(true);
    expect(found.some((p) => p.startsWith('1.kind'))).toBe(true);
    expect(found).toEqual(expect.arrayContaining(['2.base_url: base_url is required', '2.api_key_env: api_key_env is required']));
    expect(found.some((p) => p.startsWith('3.base_url'))).toBe(true);
    expect(found.some((p) => p.startsWith('3') && p.includes('extra'))).toBe(true);
  });

  it('reports duplicates and invalid JSON', () => {
    expect(problems('[{"id":"x","kind":"local"},{"id":"x","kind":"local"}]')).toEqual(['1.id: duplicate id "x"']);
    expect(problems('{nope')[0]).toMatch(/not valid JSON/);
    expect(problems('{}')[0]).toMatch(/^\(root\)/);
  });
});
