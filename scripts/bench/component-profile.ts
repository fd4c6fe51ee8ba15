import { mkdtempSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../services/farebox-paths.js';
import { findFreePort } from '../services/free-port.js';
import { waitHttpReady } from './bench-processes.js';
import { fundedAccount } from './bench-seed.js';
import { GATEWAY_CORE } from './bench-stack.js';
import { splitProfile, type ComponentSplit } from './component-split.js';
import { sendChats, WARM_UP_REQUESTS } from './instruction-counts.js';
import type { ScenarioContext } from './scenario-context.js';

/**
 * Calls in the profiled window: more than callgrind counts, since natively they take seconds
 * and a sampled profile needs thousands of busy samples for a share to hold to a percent.
 */
const PROFILED_REQUESTS = 5_000;
/** Sampling interval of the profile, µs (V8's default is 1,000). */
export const SAMPLE_INTERVAL_US = 100;

const nowUs = (): number => Number(process.hrtime.bigint() / 1_000n);

/**
 * A fresh `web`, natively (no valgrind) on the gateway core with a V8 CPU profile, given the
 * same mix the instruction count gets (the same warm-up, then `PROFILED_REQUESTS` non-streamed
 * chat calls `IN_FLIGHT` at a time), and the busy samples of that window split by component.
 * Callgrind cannot name JIT-compiled JavaScript frames; the profile can, so its shares are what
 * the steady-state instruction figure is split by.
 */
export async function profileComponents(ctx: ScenarioContext): Promise<ComponentSplit & { requests: number }> {
  const { stack } = ctx;
  const port = await findFreePort();
  // A folder per profile: a full run profiles twice (instructions, then components), and the
  // second must not read the first's file, whose samples all lie outside its window.
  const dir = mkdtempSync(path.join(stack.logDir, 'component-profile-'));
  const args = ['--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${SAMPLE_INTERVAL_US}`, ...stack.relays.web.args];
  const proc = stack.group.spawn({ name: 'web-profiled', core: GATEWAY_CORE, args, env: { ...stack.relays.web.env, PORT: String(port) }, cwd: repoRoot() });
  const url = `http://127.0.0.1:${port}`;
  let window: [number, number];
  try {
    const { key } = await fundedAccount(stack.webUrl, stack.adminToken, `bench-${stack.runId}-profiled`);
    await waitHttpReady(`${url}/readyz`, proc, 90_000);
    await sendChats(url, key, WARM_UP_REQUESTS);
    const from = nowUs();
    await sendChats(url, key, PROFILED_REQUESTS);
    window = [from, nowUs()];
  } finally {
    // The profile is written when the process exits.
    await stack.group.stop(proc.name);
  }
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`web-profiled wrote no .cpuprofile in ${dir}`);
  const split = splitProfile(path.join(dir, file), repoRoot(), window[0], window[1]);
  ctx.log(`component profile: ${split.samples} busy samples (${split.idleSamples} idle) over ${PROFILED_REQUESTS} calls: ${split.components.map((c) => `${c.component} ${(c.share * 100).toFixed(1)}%`).join(', ')}`);
  return { ...split, requests: PROFILED_REQUESTS };
}
