import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { agentBin, agentEnv } from './agent-install.js';

/**
 * How each client is pointed at a gateway: only its base URL and key change. The extra settings
 * here turn off what would reach beyond loopback (telemetry, update checks, model catalogues).
 */

/** The environment variable the Codex and opencode configs read the key from. */
export const KEY_ENV = 'FAREBOX_API_KEY';

/** A client command line with everything it needs to run. */
export interface AgentCommand {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** Makes a throwaway HOME with a work folder inside; returns both paths. */
export async function agentHome(dir: string): Promise<{ home: string; work: string }> {
  const home = join(dir, 'home');
  const work = join(dir, 'work');
  await mkdir(join(home, 'tmp'), { recursive: true });
  await mkdir(work, { recursive: true });
  return { home, work };
}

/**
 * Claude Code in print mode. `baseUrl` has no `/v1` (Claude Code appends `/v1/messages`).
 * `model` sets ANTHROPIC_MODEL and the background (Haiku-class) model; unset keeps its defaults.
 */
export async function claudeCommand(dir: string, o: { baseUrl: string; key: string; prompt: string; output: 'json' | 'stream-json'; model?: string; auth?: 'api-key' | 'auth-token' }): Promise<AgentCommand> {
  const { home, work } = await agentHome(dir);
  const env = agentEnv(home, {
    ANTHROPIC_BASE_URL: o.baseUrl,
    [o.auth === 'auth-token' ? 'ANTHROPIC_AUTH_TOKEN' : 'ANTHROPIC_API_KEY']: o.key,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...(o.model ? { ANTHROPIC_MODEL: o.model, ANTHROPIC_DEFAULT_HAIKU_MODEL: o.model, ANTHROPIC_SMALL_FAST_MODEL: o.model } : {}),
  });
  // stream-json output needs --verbose in print mode.
  const output = o.output === 'stream-json' ? ['--output-format', 'stream-json', '--verbose'] : ['--output-format', 'json'];
  return { command: agentBin.claude, args: ['-p', o.prompt, ...output], env, cwd: work };
}

/** The config.toml of a Codex home with one custom provider on the Responses API. */
export function codexConfig(baseUrl: string, model?: string): string {
  return [
    ...(model ? [`model = ${JSON.stringify(model)}`] : []),
    'model_provider = "farebox"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.farebox]',
    'name = "Farebox"',
    `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
    `env_key = "${KEY_ENV}"`,
    'wire_api = "responses"',
    // One try: a refusal shows as the client's failure, not as a retry storm.
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    // The plugin catalogue sync and app connectors would reach GitHub and ChatGPT.
    '[features]',
    'plugins = false',
    'remote_plugin = false',
    'apps = false',
    'in_app_updates = false',
    '',
  ].join('\n');
}

/** `codex exec` with a fresh CODEX_HOME holding {@link codexConfig}. */
export async function codexCommand(dir: string, o: { baseUrl: string; key: string; prompt: string; json: boolean; model?: string }): Promise<AgentCommand> {
  const { home, work } = await agentHome(dir);
  const codexHome = join(home, '.codex');
  await mkdir(codexHome, { recursive: true });
  await writeFile(join(codexHome, 'config.toml'), codexConfig(o.baseUrl, o.model));
  const env = agentEnv(home, { CODEX_HOME: codexHome, [KEY_ENV]: o.key });
  const args = ['exec', '--skip-git-repo-check', ...(o.json ? ['--json'] : []), o.prompt];
  return { command: agentBin.codex, args, env, cwd: work };
}

/** The AI SDK provider packages opencode can load for a custom provider. */
export type OpencodeSdk = '@ai-sdk/openai-compatible' | '@ai-sdk/anthropic' | '@ai-sdk/openai';

/** An opencode.json with one provider `farebox` served by `npm` at the gateway. */
export function opencodeConfig(baseUrl: string, npm: OpencodeSdk, model: string): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    model: `farebox/${model}`,
    provider: {
      farebox: {
        npm,
        name: 'Farebox',
        options: { baseURL: `${baseUrl}/v1`, apiKey: `{env:${KEY_ENV}}` },
        models: { [model]: { name: model } },
      },
    },
  };
}

/** `opencode run` in a work folder holding {@link opencodeConfig}. */
export async function opencodeCommand(dir: string, o: { baseUrl: string; key: string; prompt: string; npm: OpencodeSdk; model: string }): Promise<AgentCommand> {
  const { home, work } = await agentHome(dir);
  await writeFile(join(work, 'opencode.json'), JSON.stringify(opencodeConfig(o.baseUrl, o.npm, o.model), null, 2));
  const env = agentEnv(home, {
    [KEY_ENV]: o.key,
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
    OPENCODE_DISABLE_SHARE: '1',
  });
  return { command: agentBin.opencode, args: ['run', '--model', `farebox/${o.model}`, o.prompt], env, cwd: work };
}

/** The Agents SDK driver (agents-sdk-turn.mjs) over one of the two OpenAI APIs. */
export async function agentsSdkCommand(dir: string, o: { baseUrl: string; key: string; prompt: string; api: 'responses' | 'chat_completions'; stream: boolean; model: string; agentsDir: string }): Promise<AgentCommand> {
  const { home, work } = await agentHome(dir);
  const script = new URL('./agents-sdk-turn.mjs', import.meta.url).pathname;
  const env = agentEnv(home, {
    [KEY_ENV]: o.key,
    AGENTS_DIR: o.agentsDir,
    AGENT_BASE_URL: `${o.baseUrl}/v1`,
    AGENT_API: o.api,
    AGENT_STREAM: o.stream ? '1' : '0',
    AGENT_MODEL: o.model,
    OPENAI_AGENTS_DISABLE_TRACING: '1',
  });
  return { command: agentBin.node, args: [script, o.prompt], env, cwd: work };
}
