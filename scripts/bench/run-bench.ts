import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../services/farebox-paths.js';
import { resolveServices } from '../services/resolve-services.js';
import type { ResolvedServices } from '../services/service-types.js';
import { dropBenchData } from './bench-cleanup.js';
import { parseOptions, type BenchOptions, type ScenarioGroup } from './bench-options.js';
import { ProcessGroup } from './bench-processes.js';
import { formatCpu, machineInfo } from './bench-report.js';
import { build, GATEWAY_CORE, LOAD_CORE, startStack, type BenchStack } from './bench-stack.js';
import { canPin, pinProcess, prioritizeGenerator } from './proc-stats.js';
import { formatProfile, summarizeProfile, type ProfileSummary } from './profile-summary.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';
import { embeddingsScenario } from './scenario-embeddings.js';
import { hostileScenario } from './scenario-hostile.js';
import { ledgerScenario } from './scenario-ledger.js';
import { openStreamsScenario } from './scenario-open-streams.js';
import { queueScenario } from './scenario-queue.js';
import { ttfbScenario, relayScenario } from './scenario-streams.js';
import { STEAL_LIMIT_PERCENT, MAX_STEAL_REPEATS } from './cpu-steal.js';
import { buildReport, type Measurement } from './report-rows.js';
import { formatNotes, formatTable } from './report-table.js';
import { ratesScenario } from './scenario-rates.js';
import { throughputScenario } from './scenario-throughput.js';
import { tailScenario } from './scenario-tail-rows.js';
import { componentsScenario, instructionsScenario } from './scenario-instructions.js';
import { failoverScenario } from './scenario-failover.js';
import { tracingScenario } from './scenario-tracing.js';
import { redisKillScenario } from './scenario-redis-kill.js';
import { overloadScenario } from './scenario-overload.js';
import { cacheScenario } from './scenario-cache.js';
import { relayNode, type RelayNode } from './relay-node.js';

const NODE_SOURCES: Record<RelayNode['source'], string> = {
  BENCH_NODE: 'BENCH_NODE',
  pinned: 'the pinned production major; scripts/agents/install-agents.sh',
  runner: 'the runner\'s own; run scripts/agents/install-agents.sh for the production major',
};

const log = (message: string): void => void process.stderr.write(`[bench] ${message}\n`);

/** Scenario groups in the order they run. */
const SCENARIOS: ReadonlyArray<[ScenarioGroup, (ctx: ScenarioContext) => Promise<ScenarioOutput>]> = [
  ['throughput', throughputScenario],
  ['rates', ratesScenario],
  ['tail', tailScenario],
  ['instructions', instructionsScenario],
  ['components', componentsScenario],
  ['ttfb', ttfbScenario],
  ['relay', relayScenario],
  ['open-streams', openStreamsScenario],
  ['queue', queueScenario],
  ['ledger', ledgerScenario],
  ['hostile', hostileScenario],
  ['embeddings', embeddingsScenario],
  ['failover', failoverScenario],
  ['tracing', tracingScenario],
  ['redis-kill', redisKillScenario],
  ['overload', overloadScenario],
  ['cache', cacheScenario],
];

function layout(pinned: boolean): string {
  if (!pinned) return 'not pinned (taskset unavailable or fewer than 2 cores): every process on any core';
  return `core ${LOAD_CORE}: runner (autocannon and the other load clients, at niceness -10), mock upstream, worker, redis-server, mongod; core ${GATEWAY_CORE}: web (Farebox), the floor proxy and the Portkey peer, one of them under load at a time`;
}

async function runScenarios(ctx: ScenarioContext, options: BenchOptions): Promise<{ rows: Measurement[]; details: Record<string, unknown>; failures: Record<string, string> }> {
  const rows: Measurement[] = [];
  const details: Record<string, unknown> = {};
  const failures: Record<string, string> = {};
  for (const [name, scenario] of SCENARIOS) {
    if (!options.only.has(name)) continue;
    log(`scenario: ${name}`);
    const started = performance.now();
    try {
      const out = await scenario(ctx);
      rows.push(...out.rows);
      details[name] = { seconds: Math.round((performance.now() - started) / 1000), ...out.details };
      log(`scenario ${name} took ${Math.round((performance.now() - started) / 1000)} s`);
    } catch (err) {
      // One broken scenario should not hide the others' figures; it is reported and fails the run.
      failures[name] = err instanceof Error ? err.message : String(err);
      log(`scenario ${name} failed: ${failures[name]}`);
    }
  }
  return { rows, details, failures };
}

/** The installed version of the peer gateway. */
function peerVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'node_modules/@portkey-ai/gateway/package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

async function profileOf(stack: BenchStack): Promise<ProfileSummary | undefined> {
  // The profile is written when the web process exits.
  await stack.group.stop('web');
  const file = readdirSync(stack.logDir).find((name) => name.endsWith('.cpuprofile'));
  return file ? summarizeProfile(path.join(stack.logDir, file)) : undefined;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const runStarted = performance.now();
  const root = repoRoot();
  const machine = machineInfo();
  const pinned = machine.cpuCount >= 2 && canPin();
  if (pinned) pinProcess(process.pid, LOAD_CORE);
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'farebox-bench-'));
  const group = new ProcessGroup(logDir, pinned);
  let services: ResolvedServices | undefined;
  let stack: BenchStack | undefined;
  let keepLogs = options.keepLogs || options.profile;
  let cleaning: Promise<void> | undefined;
  const cleanup = (): Promise<void> =>
    (cleaning ??= (async () => {
      await group.stopAll();
      if (services && stack) await dropBenchData(services, stack.dbName, stack.redisPrefix).catch((err: unknown) => log(`cleanup of bench data failed: ${String(err)}`));
      await services?.stop();
      if (keepLogs) log(`process logs kept in ${logDir}`);
      else rmSync(logDir, { recursive: true, force: true });
    })());
  const interrupted = (signal: NodeJS.Signals): void => {
    log(`${signal}: stopping every process the bench started`);
    keepLogs = true;
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);

  try {
    const runtime = options.tsx ? 'tsx' : (build(root, log) ?? 'tsx');
    const node = relayNode();
    log(`runtime: ${runtime === 'dist' ? 'compiled dist/' : 'tsx'} on node ${node.version} (${NODE_SOURCES[node.source]}); ${options.quick ? 'quick' : 'full'} run; layout: ${layout(pinned)}`);
    services = await resolveServices({ env: process.env, log: (m) => log(`services: ${m}`) });
    stack = await startStack({ root, options, group, pinned, logDir, services, runtime }, log);
    // After the stack started, so no child inherits it.
    const niceness = prioritizeGenerator();
    log(`load generator at niceness ${niceness}`);
    const ctx: ScenarioContext = { stack, plan: options.plan, log, cpu: [] };
    const { rows: measurements, details, failures } = await runScenarios(ctx, options);
    const rows = buildReport(measurements);
    const profile = options.profile ? await profileOf(stack) : undefined;
    machine.loadAverage.end = os.loadavg().map((v) => Math.round(v * 100) / 100);

    const table = formatTable(rows);
    const notes = formatNotes(rows);
    console.log(`\n${table}\n${notes ? `\n${notes}\n` : ''}\nCPU use per process (% of one core; process@core):\n${formatCpu(ctx.cpu)}\n`);
    const repeated = rows.filter((row) => (row.steal?.attempts.length ?? 0) > 1).length;
    console.log(`steal: % of all CPU time the hypervisor took during each row's measurement; above ${STEAL_LIMIT_PERCENT}% a row is measured again (up to ${MAX_STEAL_REPEATS} more times) and the attempt with the least steal is reported${repeated > 0 ? ` (${repeated} rows repeated)` : ''}`);
    const busiest = ctx.cpu.reduce((max, rec) => Math.max(max, rec.othersPercent), 0);
    if (busiest > 25) console.log(`note: processes the bench did not start used up to ${busiest.toFixed(0)}% of a core during a measurement ("not ours" above); those figures are skewed`);
    console.log(`layout: ${layout(pinned)}`);
    console.log(`machine: ${machine.cpuModel} x${machine.cpuCount}, ${machine.memoryGiB} GiB, node ${machine.node}, ${machine.os}; load average ${machine.loadAverage.start.join(' ')} → ${machine.loadAverage.end.join(' ')}`);
    const elapsedSeconds = Math.round((performance.now() - runStarted) / 1000);
    console.log(`run took ${Math.floor(elapsedSeconds / 60)} min ${elapsedSeconds % 60} s`);
    if (profile) console.log(`\n${formatProfile(profile)}`);
    const results = {
      generatedAt: new Date().toISOString(),
      command: `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`,
      quick: options.quick,
      elapsedSeconds,
      runtime,
      logLevel: options.logLevel,
      layout: layout(pinned),
      machine,
      plan: options.plan,
      peer: 'failed' in stack.portkey ? { name: 'portkey', failed: stack.portkey.failed } : { name: 'portkey', package: '@portkey-ai/gateway', version: peerVersion(root) },
      steal: { limitPercent: STEAL_LIMIT_PERCENT, maxRepeats: MAX_STEAL_REPEATS },
      rows,
      table,
      details,
      cpu: ctx.cpu,
      failures,
      ...(profile ? { profile } : {}),
    };
    writeFileSync(path.join(root, 'bench-results.json'), `${JSON.stringify(results, null, 2)}\n`);
    log('wrote bench-results.json');
    if (Object.keys(failures).length > 0) keepLogs = true;
    return Object.keys(failures).length > 0 ? 1 : 0;
  } catch (err) {
    keepLogs = true;
    throw err;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
