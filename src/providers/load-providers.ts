import { z } from 'zod';
import type { ProviderKind } from './provider.js';
import type { LoadedProvider } from './registry.js';

const KINDS = ['openai', 'anthropic', 'mistral-ocr', 'openai-images', 'local'] as const satisfies readonly ProviderKind[];

/**
 * Kinds whose vendor continues a trailing assistant message by default: Anthropic's Messages
 * API does; OpenAI's own API answers it anew, though some compatible servers continue it.
 */
const PREFILL_BY_DEFAULT: ReadonlySet<ProviderKind> = new Set(['anthropic']);

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name');

const entrySchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/, 'lower-case letters, digits, ".", "_" or "-"'),
    kind: z.enum(KINDS),
    base_url: z.url({ protocol: /^https?$/ }).optional(),
    api_key_env: z.union([envName, z.array(envName).min(1).max(32)]).optional(),
    output_limit_field: z.enum(['max_tokens', 'max_completion_tokens']).optional(),
    // The upstream also speaks OpenAI's Responses API (`POST /responses`), so `/v1/responses` is relayed to it as is.
    responses_api: z.boolean().optional(),
    // The upstream continues a trailing assistant message (prefill); absent: its kind's default.
    prefill: z.boolean().optional(),
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
 * each key from `env` (`api_key_env` may name several variables: their set keys are pooled). Every provider is returned; those other than `local` whose variable is
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
    const names = entry.api_key_env === undefined ? [] : typeof entry.api_key_env === 'string' ? [entry.api_key_env] : entry.api_key_env;
    const keys = names.flatMap((name) => {
      const value = env[name]?.trim();
      return value === undefined || value === '' ? [] : [{ env: name, value }];
    });
    const apiKey = keys[0]?.value;
    const enabled = entry.kind === 'local' || apiKey !== undefined;
    const out: LoadedProvider = { id: entry.id, kind: entry.kind, enabled };
    if (entry.base_url !== undefined) out.baseUrl = entry.base_url;
    if (names[0] !== undefined) out.apiKeyEnv = names[0];
    if (apiKey !== undefined) out.apiKey = apiKey;
    // One key needs no pool: the adapter's own header carries it.
    if (keys.length > 1) out.apiKeys = keys;
    if (entry.output_limit_field !== undefined) out.outputLimitField = entry.output_limit_field;
    if (entry.responses_api === true) out.responsesApi = true;
    // Absent means no: only a provider that takes prefill says so.
    if (entry.prefill ?? PREFILL_BY_DEFAULT.has(entry.kind)) out.prefill = true;
    return out;
  });
}
