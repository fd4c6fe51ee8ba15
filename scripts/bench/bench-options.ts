/** Scenario groups that can be run on their own with `--only=a,b`. */
export const SCENARIO_GROUPS = ['throughput', 'rates', 'ttfb', 'open-streams', 'relay', 'queue', 'ledger', 'hostile', 'embeddings', 'tail', 'instructions', 'components', 'failover', 'tracing', 'redis-kill', 'overload', 'cache'] as const;
export type ScenarioGroup = (typeof SCENARIO_GROUPS)[number];

/** Sizes and durations of one benchmark run. */
export interface BenchPlan {
  /** Seconds of each max-throughput measurement (after a warm-up of a third of that). */
  throughputSeconds: number;
  /** Connections of the max-throughput load. */
  throughputConnections: number;
  /** Alternating floor/Farebox max-throughput rounds; the best of each is reported (other work only ever lowers it). */
  throughputRounds: number;
  /** Seconds of each fixed-rate measurement (the rate is DESIGN §9's 500 req/s). */
  rateSeconds: number;
  /** Sequential streams timed for time to first byte. */
  ttfbSamples: number;
  /** Streams held open at once. */
  openStreams: number;
  /** 100-chunk streams relayed between the two memory readings. */
  relayStreams: number;
  /** Sequential image jobs timed for the queue round trip. */
  queueSamples: number;
  /** Seconds of the jobs/s measurement. */
  jobsSeconds: number;
  /** Concurrent image requests during the jobs/s measurement. */
  jobsConcurrency: number;
  /** 4 MB image requests timed. */
  bigImageSamples: number;
  /** Charges sent through the ledger writer. */
  ledgerCharges: number;
  /** Charges committed one at a time for the lone commit latency. */
  loneCommits: number;
  /** Timed pairs (second route alone, failover) per failure kind. */
  failoverSamples: number;
}

/** Parsed command line of `npm run bench -- [flags]`. */
export interface BenchOptions {
  quick: boolean;
  /** Write a CPU profile of the web process (`--cpu-prof`) into the log folder. */
  profile: boolean;
  /** Run TypeScript through tsx instead of compiling to dist/. */
  tsx: boolean;
  /** Log level of the web and worker processes (production default: info). */
  logLevel: string;
  /** Keep the folder with process logs (and profiles) after the run. */
  keepLogs: boolean;
  only: ReadonlySet<ScenarioGroup>;
  plan: BenchPlan;
}

const FULL: BenchPlan = {
  throughputSeconds: 10,
  throughputConnections: 256,
  throughputRounds: 3,
  rateSeconds: 10,
  ttfbSamples: 400,
  openStreams: 5_000,
  relayStreams: 3_000,
  queueSamples: 400,
  jobsSeconds: 10,
  jobsConcurrency: 64,
  bigImageSamples: 10,
  ledgerCharges: 60_000,
  loneCommits: 200,
  failoverSamples: 60,
};

const QUICK: BenchPlan = {
  ...FULL,
  throughputSeconds: 4,
  throughputRounds: 1,
  rateSeconds: 4,
  ttfbSamples: 150,
  openStreams: 2_000,
  relayStreams: 1_000,
  queueSamples: 150,
  jobsSeconds: 4,
  bigImageSamples: 5,
  ledgerCharges: 20_000,
  loneCommits: 100,
  failoverSamples: 20,
};

const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'silent']);

/** Reads the flags; unknown flags are an error so a typo does not silently run the full bench. */
export function parseOptions(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match?.[1]) throw new Error(`unknown argument "${arg}"`);
    flags.set(match[1], match[2] ?? 'true');
  }
  const known = new Set(['quick', 'profile', 'tsx', 'log-level', 'keep-logs', 'only']);
  for (const name of flags.keys()) if (!known.has(name)) throw new Error(`unknown flag --${name} (known: ${[...known].join(', ')})`);
  const logLevel = flags.get('log-level') ?? 'info';
  if (!LOG_LEVELS.has(logLevel)) throw new Error(`--log-level must be one of ${[...LOG_LEVELS].join(', ')}`);
  const onlyText = flags.get('only');
  const only = new Set<ScenarioGroup>(
    onlyText === undefined
      ? SCENARIO_GROUPS
      : onlyText.split(',').map((name) => {
          if (!(SCENARIO_GROUPS as readonly string[]).includes(name)) throw new Error(`--only: unknown group "${name}" (${SCENARIO_GROUPS.join(', ')})`);
          return name as ScenarioGroup;
        }),
  );
  const quick = flags.has('quick');
  return { quick, profile: flags.has('profile'), tsx: flags.has('tsx'), logLevel, keepLogs: flags.has('keep-logs'), only, plan: quick ? QUICK : FULL };
}
