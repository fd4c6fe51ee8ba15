import { z } from 'zod';
import type { ProviderKind } from './provider.js';
import type { LoadedProvider } from './registry.js';

const KINDS = ['openai', 'anthropic', 'mistral-ocr', 'openai-images', 'local'] as const satisfies readonly ProviderKind[];

const entrySchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" or "-"'),
    kind: z.enum(KINDS),
    base_url: z.url({ protocol: /^https?$/ }).optional(),
    api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name').optional(),
  })
  .strict()
  .refine((entry) => entry.kind === 'local' || entry.base_url !== undefined, { message: 'base_url is required', path: ['base_url'] })
  .refine((entry) => entry.kind === 'local' || entry.api_key_env !== undefined, { message: 'api_key_env is required', path: ['api_key_env'] });

const fileSchema = z.array(entrySchema).superRefine((entries, ctx) => {
  const seen = new Set<string>();
  entries.forEach((entry, i) => {
    if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', message: `duplicate id "${entry.id}"`, path: [i, 'id'] });
    seen.add(entry.id);
  });
});

/** Raised at boot when the providers file is unusable; the message lists every problem. */
export class ProvidersFileError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`Invalid providers file:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ProvidersFileError';
  }
}

function parseJson(fileText: string): unknown {
  try {
    return JSON.parse(fileText) as unknown;
  } catch (err) {
    throw new ProvidersFileError([`not valid JSON (${err instanceof Error ? err.message : String(err)})`]);
  }
}

/**
 * Reads the providers file (a JSON array of `{id, kind, base_url, api_key_env}`) and resolves
 * each key from `env`. Every provider is returned; those other than `local` whose variable is
 * unset or empty come back with `enabled: false` and no `apiKey`, so the catalog can still
 * list their models while requests to them answer 503.
 * @throws ProvidersFileError listing every problem found.
 */
export function loadProviders(fileText: string, env: Readonly<Record<string, string | undefined>>): LoadedProvider[] {
  const parsed = fileSchema.safeParse(parseJson(fileText));
  if (!parsed.success) {
    throw new ProvidersFileError(parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`));
  }
  return parsed.data.map((entry): LoadedProvider => {
    const key = entry.api_key_env === undefined ? undefined : env[entry.api_key_env];
    const apiKey = key === undefined || key.trim() === '' ? undefined : key.trim();
    const enabled = entry.kind === 'local' || apiKey !== undefined;
    const out: LoadedProvider = { id: entry.id, kind: entry.kind, enabled };
    if (entry.base_url !== undefined) out.baseUrl = entry.base_url;
    if (entry.api_key_env !== undefined) out.apiKeyEnv = entry.api_key_env;
    if (apiKey !== undefined) out.apiKey = apiKey;
    return out;
  });
}
