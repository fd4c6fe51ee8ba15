import path from 'node:path';
import { dropBenchData } from './bench-cleanup.js';
import { waitHttpReady } from './bench-processes.js';
import { seedBench } from './bench-seed.js';
import { chatHeaders } from './chat-requests.js';
import type { ScenarioContext } from './scenario-context.js';
import { spreadAccounts, type TailEndpoint } from './scenario-tail.js';
import { startSideWeb } from './side-web.js';

/** The side webs of the tail rows: `LEDGER_ACK=local`, alone or with `ADMISSION=leased`. */
export type SideMode = 'local' | 'leased';

/** What each side mode sets beside the stack's own settings. */
const MODE_ENV: Readonly<Record<SideMode, NodeJS.ProcessEnv>> = {
  local: { LEDGER_ACK: 'local', ADMISSION: 'exact' },
  leased: { LEDGER_ACK: 'local', ADMISSION: 'leased' },
};

/** A second web, started for the tail rows in another ledger or admission mode. */
export interface LocalAckWeb {
  endpoint: TailEndpoint;
  stop(): Promise<void>;
}

/**
 * A second `web` beside the stack's own on the gateway core, with `LEDGER_ACK=local`: a charge
 * is acknowledged once it is fsync'd to the local spool (its own folder in the run's log
 * folder) and reaches MongoDB behind. It has its own database and Redis prefix (models, account
 * and spread accounts seeded through it): while one process holds spooled charges, every
 * commit-mode process on the same database turns paid work away, so on a shared one the modes
 * would measure each other. It is tracked like the other relays while it runs, so the CPU lines
 * show it and `settle` waits for it too.
 */
export async function startLocalAckWeb(ctx: ScenarioContext, mode: SideMode = 'local'): Promise<LocalAckWeb> {
  const { stack } = ctx;
  const { url, proc, env } = await startSideWeb(ctx, mode, { ...MODE_ENV[mode], CHARGE_SPOOL_DIR: path.join(stack.logDir, `spool-${mode}`) });
  const drop = (): Promise<void> => dropBenchData(stack.services, env.MONGODB_DB ?? '', env.REDIS_PREFIX ?? '').catch((err: unknown) => ctx.log(`cleanup of local-ack data failed: ${String(err)}`));
  let endpoint: TailEndpoint;
  try {
    await waitHttpReady(`${url}/readyz`, proc, 90_000);
    const account = await seedBench(url, stack.adminToken, `${stack.runId}-${mode}`);
    const spread = await spreadAccounts(ctx, url);
    endpoint = { name: mode === 'local' ? 'farebox-local' : 'farebox-leased', url, headers: chatHeaders(account.key), pid: proc.pid, spreadKeys: spread.map((a) => a.key) };
  } catch (err) {
    await stack.group.stop(proc.name);
    await drop();
    throw err;
  }
  const tracked = { name: proc.name, pid: proc.pid, core: proc.core };
  stack.tracked.push(tracked);
  ctx.log(`web with LEDGER_ACK=local, ADMISSION=${env.ADMISSION} at ${url} (database ${env.MONGODB_DB})`);
  return {
    endpoint,
    stop: async () => {
      stack.tracked.splice(stack.tracked.indexOf(tracked), 1);
      await stack.group.stop(proc.name);
      await drop();
    },
  };
}
