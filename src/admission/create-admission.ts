import { LeasedAdmission } from './leased-admission.js';
import { type AdmissionDeps, RedisAdmission } from './redis-admission.js';

/** The admission a process runs: exact (every request in Redis) or leased (from slices). */
export type ProcessAdmission = RedisAdmission | LeasedAdmission;

/** Creates the process's admission control, as `ADMISSION` chooses (exact when its settings are not given). */
export function createAdmission(deps: AdmissionDeps): ProcessAdmission {
  const exact = new RedisAdmission(deps);
  const settings = deps.config.admission;
  if (settings?.mode !== 'leased') return exact;
  const { redis, ledger, clock, log, bus } = deps;
  return new LeasedAdmission(exact, { redis, ledger, clock, log, slices: settings.slices, ...(bus ? { bus } : {}) });
}
