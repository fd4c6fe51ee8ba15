import type { KeyTrail } from '../providers/index.js';
import type { AttemptRecord } from '../ledger/index.js';
import { judgeFailure } from './failover-rules.js';
import type { RouteTarget } from './route-target.js';

/** Where a request's attempts go: its record draft (web) or the job's result (worker). */
export interface AttemptSink {
  attempted(attempt: AttemptRecord): void;
  /** A route answered: the record names its model and provider. */
  answeredBy(model: string, provider: string): void;
}

/** A sink that keeps the attempts in order (a job carries them back to the web in its result). */
export class AttemptList implements AttemptSink {
  readonly attempts: AttemptRecord[] = [];

  attempted(attempt: AttemptRecord): void {
    this.attempts.push(attempt);
  }

  answeredBy(): void {
    // The answering route is the last `answered` attempt; nothing else to keep.
  }
}

/** Writes one request's attempt records, one line per route tried, skipped or key refused. */
export class AttemptLog {
  constructor(private readonly sink: AttemptSink | undefined) {}

  /** One attempt of a route (`keyEnv`: the variable naming the upstream key used). */
  note(route: RouteTarget, outcome: AttemptRecord['outcome'], cause: string | null, status: number | null, ms: number, keyEnv: string | null = null): void {
    const attempt: AttemptRecord = { model: route.entryId, provider: route.providerId, upstream_model: route.upstreamModel, outcome, cause, status, latency_ms: Math.round(ms) };
    if (keyEnv !== null) attempt.key_env = keyEnv;
    this.sink?.attempted(attempt);
  }

  /** Notes the keys the vendor refused before the request went on with the next (0 ms: the time is the attempt's). */
  refusedKeys(route: RouteTarget, trail: KeyTrail): void {
    for (const key of trail.tries) {
      if (key.refusal === undefined) continue;
      const verdict = judgeFailure(key.refusal);
      this.note(route, 'failed', verdict.cause, verdict.status ?? null, 0, key.env);
    }
  }

  /** The route answered: the request is named after it. */
  answered(route: RouteTarget): void {
    this.sink?.answeredBy(route.entryId, route.providerId);
  }
}
