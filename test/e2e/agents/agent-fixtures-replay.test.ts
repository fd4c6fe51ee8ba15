import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeAnthropic, type FakeUpstream } from '../../fixtures/upstreams/fake-anthropic.js';
import { startFakeOpenAi } from '../../fixtures/upstreams/fake-openai.js';
import { startFakeOpenAiResponses } from '../../fixtures/upstreams/fake-openai-responses.js';
import { adminClient } from '../../helpers/admin-client.js';
import { agentFixtureRequests, replayHeaders, type AgentFixtureRequest } from '../../helpers/agents/agent-fixtures.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';

/**
 * The first requests real coding agents sent (Claude Code, Codex CLI, opencode, the Agents
 * SDK; see test/fixtures/agents/) replayed through every door and route kind they apply to:
 * relayed as is to an upstream that speaks the door's own API, which must receive every field
 * the client sent, and translated to routes of the other kinds and to local/echo.
 */

const KEYS = { openai: 'sk-replay-openai-0000000000', responses: 'sk-replay-responses-00000000', anthropic: 'sk-ant-replay-0000000000' };
/** Fields the gateway sets on a relayed request: the route's model and the output limit it holds. */
const SET_BY_GATEWAY: Readonly<Record<string, readonly string[]>> = { '/v1/messages': ['model', 'max_tokens'], '/v1/responses': ['model', 'max_output_tokens'], '/v1/chat/completions': ['model', 'max_tokens', 'max_completion_tokens'] };

/** Which catalog ids each door's recorded requests go to, and which of them relays as is. */
const TARGETS: Readonly<Record<string, { relay: string; translated: readonly string[] }>> = {
  '/v1/messages': { relay: 'fake/claude', translated: ['local/echo', 'fake/gpt'] },
  '/v1/responses': { relay: 'fake/gpt-responses', translated: ['local/echo', 'fake/claude'] },
  '/v1/chat/completions': { relay: 'fake/gpt', translated: ['local/echo', 'fake/claude'] },
};

let setup: TestGateway;
let web: WebProcess;
let raw: string;
let dir: string;
const fakes: Record<'openai' | 'responses' | 'anthropic', FakeUpstream> = {} as Record<'openai' | 'responses' | 'anthropic', FakeUpstream>;

beforeAll(async () => {
  fakes.openai = await startFakeOpenAi({ apiKey: KEYS.openai });
  fakes.responses = await startFakeOpenAiResponses({ apiKey: KEYS.responses });
  fakes.anthropic = await startFakeAnthropic({ apiKey: KEYS.anthropic });
  dir = await mkdtemp(join(tmpdir(), 'fbx-agent-replay-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'fake-openai', kind: 'openai', base_url: `${fakes.openai.url}/v1`, api_key_env: 'REPLAY_OPENAI_KEY' },
    { id: 'fake-responses', kind: 'openai', base_url: `${fakes.responses.url}/v1`, api_key_env: 'REPLAY_RESPONSES_KEY', responses_api: true },
    { id: 'fake-anthropic', kind: 'anthropic', base_url: fakes.anthropic.url, api_key_env: 'REPLAY_ANTHROPIC_KEY' },
  ]));
  const env = testEnv({ LOG_LEVEL: 'warn', PROVIDERS_FILE: providersFile, REPLAY_OPENAI_KEY: KEYS.openai, REPLAY_RESPONSES_KEY: KEYS.responses, REPLAY_ANTHROPIC_KEY: KEYS.anthropic });
  setup = await startTestGateway({ env });
  const admin = adminClient(setup.url);
  const entry = (provider: string, upstream_model: string) => ({
    name: upstream_model, kind: 'chat', provider, upstream_model, context_length: 400_000, max_output_tokens: 128_000,
    pricing: { prompt: '0.000001', completion: '0.000002', web_search: '0.01' }, capabilities: ['TOOLS', 'REASONING', 'VISION'], max_web_searches: 5,
  });
  await admin.call('PUT', '/models/fake/gpt', entry('fake-openai', 'gpt-4.1'));
  await admin.call('PUT', '/models/fake/gpt-responses', entry('fake-responses', 'gpt-5'));
  await admin.call('PUT', '/models/fake/claude', entry('fake-anthropic', 'claude-sonnet-4-5'));
  const accountId = await admin.createAccount();
  await admin.topup(accountId, 100);
  raw = (await admin.mintKey(accountId)).raw;
  web = await spawnWeb(env);
});

afterAll(async () => {
  await web?.stop();
  await setup?.close();
  await Promise.all(Object.values(fakes).map((fake) => fake.close()));
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

function authFor(route: string): Record<string, string> {
  return route === '/v1/messages' ? { 'x-api-key': raw } : { authorization: `Bearer ${raw}` };
}

async function replay(recorded: AgentFixtureRequest, model: string): Promise<{ status: number; text: string }> {
  const { request, route } = recorded;
  const body = { ...(request.body as Record<string, unknown>), model };
  const res = await fetch(`${web.url}${request.path}`, { method: 'POST', headers: replayHeaders(request, authFor(route)), body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

function without(body: unknown, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body as Record<string, unknown>).filter(([field]) => !fields.includes(field)));
}

const recorded = agentFixtureRequests(['/v1/messages', '/v1/responses', '/v1/chat/completions']);
const name = (r: AgentFixtureRequest): string => `${r.fixture.client} ${r.fixture.version} ${r.fixture.name} #${r.index}`;

describe('recorded first requests of real agent clients', () => {
  it('cover Claude Code, Codex CLI, opencode and the Agents SDK', () => {
    expect(new Set(recorded.map((r) => r.fixture.client))).toEqual(new Set(['claude-code', 'codex', 'opencode', 'openai-agents']));
  });

  it.each(recorded.map((r) => [name(r), r] as const))('%s: relayed as is, with every field the client sent', async (_, r) => {
    const target = TARGETS[r.route];
    if (target === undefined) throw new Error(`no target for ${r.route}`);
    const fake = r.route === '/v1/messages' ? fakes.anthropic : r.route === '/v1/responses' ? fakes.responses : fakes.openai;
    const before = fake.requests.length;
    const res = await replay(r, target.relay);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
    const received = fake.requests.slice(before).find((q) => q.method === 'POST');
    const ignored = SET_BY_GATEWAY[r.route] ?? [];
    // Chat completions go through the chat adapter, which always asks for the usage chunk and leaves out `stream: false`, the default.
    const extra = r.route === '/v1/chat/completions' ? ['stream_options', 'stream'] : [];
    expect(without(received?.body, [...ignored, ...extra])).toEqual(without(r.request.body, [...ignored, ...extra]));
  });

  it.each(recorded.flatMap((r) => (TARGETS[r.route]?.translated ?? []).map((model) => [`${name(r)} → ${model}`, r, model] as const)))('%s: translated, answered 200', async (_, r, model) => {
    const res = await replay(r, model);
    expect(res.status, res.text.slice(0, 500)).toBe(200);
  });
});
