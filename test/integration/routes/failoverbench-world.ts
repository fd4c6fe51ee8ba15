import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/platform/config/config.js';
import { FULL_TIMINGS, type Fault, type FaultTimings, type FaultyOpenAi, startFaultyOpenAi } from '../../fixtures/upstreams/faulty-openai.js';
import { adminClient } from '../../helpers/admin-client.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { fundedKey, type FundedKey } from '../chat/chat-client.js';

/** Every duration of the benchmark and of the gateway's shipped limits is divided by this. */
export const SCALE = 5;

/** A duration at the benchmark's full timings, ms, as the scaled run's. */
export const scaled = (ms: number): number => Math.round(ms / SCALE);

/**
 * Time a loaded two-core machine adds to a call (admission, MongoDB, the stores, the other
 * cells running at once), ms, which does not shrink with the scale: added to every wall-time
 * budget of the benchmark (see the runner's wallLimit for the one exception); a slow two-core
 * machine under load took up to 1.8 s more than when alone. It is shorter than
 * the waits a wrong turn would add here (the 6 s stall limit, the 24 s first-byte limit, the
 * 60 s idle limit), so such a call still fails its budget.
 */
export const SLACK_MS = 2_500;

/** The provider's faults at the benchmark's full timings, scaled; a `Retry-After` stays whole seconds (one, the least a header can say). */
export const TIMINGS: FaultTimings = {
  ...FULL_TIMINGS,
  retryAfterSeconds: 1,
  slowFirstTokenMs: scaled(FULL_TIMINGS.slowFirstTokenMs),
  stallMs: scaled(FULL_TIMINGS.stallMs),
  silentMs: scaled(FULL_TIMINGS.silentMs),
  flapDownMs: scaled(FULL_TIMINGS.flapDownMs),
  tokenIntervalMs: FULL_TIMINGS.tokenIntervalMs / SCALE,
};

/**
 * The gateway's shipped defaults (read from the config with nothing set), with every limit
 * that is a duration scaled: the suite tests what a fresh install does, only faster. The retry
 * budget is kept as shipped, since S01's one-second `Retry-After` must fit in it as the full
 * two seconds fit in the full budget; so is the quick-failure limit, which bounds the machine's
 * delay, not the provider's (S03's 500 comes at once at any scale).
 */
export function scaledDefaults(): Record<string, string> {
  const shipped = loadConfig(testEnv());
  return {
    UPSTREAM_FIRST_BYTE_TIMEOUT_MS: String(scaled(shipped.upstream.firstByteMs)),
    UPSTREAM_IDLE_TIMEOUT_MS: String(scaled(shipped.upstream.idleMs)),
    UPSTREAM_FIRST_TOKEN_TIMEOUT_MS: String(scaled(shipped.requestTiming.firstTokenMs)),
    UPSTREAM_STALL_TIMEOUT_MS: String(scaled(shipped.requestTiming.stallMs)),
    ROUTE_BREAKER_COOLDOWN_MS: String(scaled(shipped.routes.breakerCooldownMs)),
    ROUTE_BREAKER_FAILURES: String(shipped.routes.breakerFailures),
    ROUTE_RETRY_BUDGET_MS: String(shipped.routes.retryBudgetMs),
    ROUTE_QUICK_FAILURE_MS: String(shipped.routes.quickFailureMs),
  };
}

/** Prices of the primary route and of the fallback, USD per token (apart, so each leg shows its own). */
export const PRIMARY_PRICE = { prompt: '0.000001', completion: '0.000002' };
export const FALLBACK_PRICE = { prompt: '0.000003', completion: '0.000004' };

/** The prompt of every scenario (our own wording of the benchmark's sixty-word question). */
export const PROMPT = 'In exactly sixty words, explain why a gateway earns trust only on the days its providers misbehave.';

/** Providers: the faulty one, its fallback that continues a prefill, and one whose kind's default (no prefill) applies. */
const PROVIDERS = (url: string) => [
  { id: 'local', kind: 'local' },
  { id: 'wall', kind: 'openai', base_url: `${url}/v1`, api_key_env: 'FB_WALL_KEY' },
  { id: 'wall-fallback', kind: 'openai', base_url: `${url}/v1`, api_key_env: 'FB_WALL_KEY', prefill: true },
  { id: 'wall-noprefill', kind: 'openai', base_url: `${url}/v1`, api_key_env: 'FB_WALL_KEY' },
];

/** One scenario's models in the catalog, for one door and mode: the names the provider sees and the ids clients send. */
export interface Instance {
  /** The catalog id the client asks for. */
  readonly model: string;
  /** The fallback's own catalog id when the fallback is a model of `models`, else undefined (a second route). */
  readonly fallbackModel: string | undefined;
  /** The upstream model names the provider sees on each route. */
  readonly primaryUpstream: string;
  readonly fallbackUpstream: string;
}

/** The faulty provider, a gateway over it, and a funded key. */
export interface BenchWorld {
  readonly wall: FaultyOpenAi;
  readonly gw: TestGateway;
  readonly key: FundedKey;
  /**
   * Puts one scenario's models in the catalog under `tag`: with `models`, the primary and its
   * fallback as two models (Chat Completions' `models` field, as the benchmark's "fallback
   * model"); otherwise one model whose second route is the fallback (the other doors).
   */
  instance(tag: string, fault: Fault, fallback: 'ok' | 'no-prefill', viaModels: boolean): Promise<Instance>;
  close(): Promise<void>;
}

async function putModel(gw: TestGateway, id: string, routes: Array<{ provider: string; upstream_model: string; pricing: { prompt: string; completion: string } }>): Promise<void> {
  const body = { name: id, kind: 'chat', routes, pricing: routes[0]?.pricing, context_length: 100_000, max_output_tokens: 200 };
  const res = await adminClient(gw.url).call('PUT', `/models/${id}`, body);
  if (res.status !== 200) throw new Error(`PUT model ${id}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Starts the faulty provider and a gateway with the shipped defaults, scaled (`env` over them). */
export async function startBenchWorld(env: Record<string, string> = {}): Promise<BenchWorld> {
  const wall = await startFaultyOpenAi(TIMINGS);
  const dir = await mkdtemp(join(tmpdir(), 'fbx-bench-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify(PROVIDERS(wall.url)));
  const gw = await startTestGateway({
    env: testEnv({ LOG_LEVEL: 'info', PROVIDERS_FILE: providersFile, FB_WALL_KEY: 'sk-fake-failoverbench-wall-0001', ...scaledDefaults(), ...env }),
  });
  const key = await fundedKey(gw.url, 100);
  return {
    wall,
    gw,
    key,
    async instance(tag, fault, fallback, viaModels) {
      const primary = { provider: 'wall', upstream_model: `${fault}@${tag}`, pricing: PRIMARY_PRICE };
      const second = { provider: fallback === 'ok' ? 'wall-fallback' : 'wall-noprefill', upstream_model: `${fallback}@${tag}`, pricing: FALLBACK_PRICE };
      const model = `fb/${tag}`;
      if (!viaModels) {
        await putModel(gw, model, [primary, second]);
        return { model, fallbackModel: undefined, primaryUpstream: primary.upstream_model, fallbackUpstream: second.upstream_model };
      }
      const fallbackModel = `fb/${tag}-fallback`;
      await putModel(gw, model, [primary]);
      await putModel(gw, fallbackModel, [second]);
      return { model, fallbackModel, primaryUpstream: primary.upstream_model, fallbackUpstream: second.upstream_model };
    },
    async close() {
      await gw.close();
      await wall.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
