import { repoRoot } from '../services/farebox-paths.js';
import { findFreePort } from '../services/free-port.js';
import { type BenchProcess } from './bench-processes.js';
import { GATEWAY_CORE, runRelease } from './bench-stack.js';
import type { ScenarioContext } from './scenario-context.js';

/** A `web` of a scenario's own, beside the stack's on the gateway core. */
export interface SideWeb {
  readonly url: string;
  readonly proc: BenchProcess;
  readonly env: NodeJS.ProcessEnv;
}

/**
 * Starts a `web` with the stack's settings plus `extra` (a setting undefined there: the web's
 * default), on a database and Redis prefix of its own (`<stack's>_<suffix>`, released first),
 * so what it does cannot move the stack's rows. The caller waits for it to be ready and stops it.
 */
export async function startSideWeb(ctx: ScenarioContext, suffix: string, extra: NodeJS.ProcessEnv): Promise<SideWeb> {
  const { stack } = ctx;
  const port = await findFreePort();
  const env: NodeJS.ProcessEnv = {
    ...stack.relays.web.env,
    PORT: String(port),
    MONGODB_DB: `${stack.dbName}_${suffix}`,
    REDIS_PREFIX: `${stack.redisPrefix}_${suffix}`,
    ...extra,
  };
  // A setting `extra` names as undefined is left to the web's default.
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  runRelease(repoRoot(), stack.runtime, env);
  const proc = stack.group.spawn({ name: `web-${suffix}`, core: GATEWAY_CORE, args: stack.relays.web.args, env, cwd: repoRoot() });
  return { url: `http://127.0.0.1:${port}`, proc, env };
}
