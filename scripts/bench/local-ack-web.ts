import path from 'node:path';
import { findFreePort } from '../services/free-port.js';
import { waitHttpReady } from './bench-processes.js';
import { GATEWAY_CORE } from './bench-stack.js';
import { chatHeaders } from './chat-requests.js';
import type { ScenarioContext } from './scenario-context.js';
import type { TailEndpoint } from './scenario-tail.js';

/** A second web, started for the tail rows in the other ledger mode. */
export interface LocalAckWeb {
  endpoint: TailEndpoint;
  stop(): Promise<void>;
}

/**
 * A second `web` beside the stack's own, on the same database, Redis and gateway core, with
 * `LEDGER_ACK=local`: a charge is acknowledged once it is fsync'd to the local spool (its own
 * folder in the run's log folder) and reaches MongoDB behind. It is tracked like the other
 * relays while it runs, so the CPU lines show it and `settle` waits for it too.
 */
export async function startLocalAckWeb(ctx: ScenarioContext): Promise<LocalAckWeb> {
  const { stack } = ctx;
  const port = await findFreePort();
  const env = { ...stack.relays.web.env, PORT: String(port), LEDGER_ACK: 'local', CHARGE_SPOOL_DIR: path.join(stack.logDir, 'spool-local') };
  const proc = stack.group.spawn({ name: 'web-local', core: GATEWAY_CORE, args: stack.relays.web.args, env, cwd: process.cwd() });
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitHttpReady(`${url}/readyz`, proc, 90_000);
  } catch (err) {
    await stack.group.stop(proc.name);
    throw err;
  }
  const tracked = { name: proc.name, pid: proc.pid, core: proc.core };
  stack.tracked.push(tracked);
  ctx.log(`web with LEDGER_ACK=local at ${url}`);
  return {
    endpoint: { name: 'farebox-local', url, headers: chatHeaders(stack.account.key), pid: proc.pid },
    stop: async () => {
      stack.tracked.splice(stack.tracked.indexOf(tracked), 1);
      await stack.group.stop(proc.name);
    },
  };
}
