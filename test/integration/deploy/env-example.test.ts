import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/platform/config/config.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function parseEnvFile(text: string): Record<string, string> {
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const eq = line.indexOf('=');
      return [line.slice(0, eq), line.slice(eq + 1)] as const;
    });
  return Object.fromEntries(entries);
}

describe('.env.example', () => {
  const text = readFileSync(`${ROOT}.env.example`, 'utf8');
  const example = parseEnvFile(text);

  it('names every variable the configuration reads, each with a comment above it', () => {
    const source = readFileSync(`${ROOT}src/platform/config/config.ts`, 'utf8');
    const schemaKeys = [...source.matchAll(/^ {4}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]);
    expect(schemaKeys.length).toBeGreaterThan(15);
    for (const key of schemaKeys) expect(Object.keys(example), `${key} missing`).toContain(key);
    const providerKeys = [...readFileSync(`${ROOT}src/providers/providers.json`, 'utf8').matchAll(/"api_key_env":\s*"([A-Z0-9_]+)"/g)].map((m) => m[1]);
    for (const key of providerKeys) expect(Object.keys(example), `${key} missing`).toContain(key);
    const lines = text.split('\n');
    lines.forEach((line, i) => {
      if (/^[A-Z]/.test(line)) expect(lines.slice(0, i).reverse().find((l) => !/^[A-Z]/.test(l)), line).toMatch(/^#/);
    });
  });

  it('is a valid configuration as it stands, and holds no secret', () => {
    expect(() => loadConfig(example)).not.toThrow();
    for (const [key, value] of Object.entries(example)) {
      if (/KEY|TOKEN|SECRET|PASSWORD/.test(key)) expect(value, key).toBe('');
    }
  });
});
