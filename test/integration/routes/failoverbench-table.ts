import type { Fault } from '../../fixtures/upstreams/faulty-openai.js';

/**
 * failoverbench's sixteen scenarios (failoverbench/failoverbench, methodology v0.1,
 * scenarios/catalogue.yaml), re-expressed as our own table: the fault the provider plays, the
 * fallback behind it, the ideal outcome, the scenario's time budget and its checks, with every
 * figure at the benchmark's full timings (the suite divides them by its scale). Scoring follows
 * the methodology: pass = rescued with every check clean; partial = rescued with an advisory
 * check failed (or, where the ideal is an error, answered by routing around it); safe = not
 * rescued but a bounded clean error with every required check clean; fail = a hang, a
 * truncated answer presented as success, or a required check failed.
 */

/** What a check looks at. */
export type CheckKind =
  /** The call ended inside the scenario's budget. */
  | 'no-hang'
  /** Success, and the text is the whole answer. */
  | 'complete'
  /** Fails only on a success whose text is not the whole answer. */
  | 'no-truncated-success'
  | 'primary-min'
  | 'primary-max'
  | 'primary-eq'
  /** Seconds between the primary's first two attempts, at least `value` times the stated Retry-After. */
  | 'retry-after-honoured'
  /** Primary attempts within the first `windowMs` at most `value`. */
  | 'attempts-within'
  /** The call's wall time at most `value` ms. */
  | 'wall-max'
  /** A healthy call through the same gateway answers afterwards. */
  | 'alive-after'
  | 'fallback-used'
  /** The answer names the fallback. */
  | 'reports-fallback'
  | 'usage-present'
  /** An error as the final result, while the provider saw a prefill refused, fails. */
  | 'no-prefill-masking';

/** One check of a scenario. */
export interface Check {
  readonly id: string;
  readonly kind: CheckKind;
  readonly value?: number;
  readonly windowMs?: number;
  /** A failure makes the cell partial instead of fail. */
  readonly advisory?: boolean;
  /** Reported, never scored. */
  readonly informational?: boolean;
  /** Its figures are about a `Retry-After` header, whose whole seconds cannot be scaled: kept as they are. */
  readonly unscaled?: boolean;
}

/** One scenario. */
export interface Scenario {
  readonly id: string;
  readonly title: string;
  readonly fault: Fault;
  /** What the fallback route does: answers (and continues a prefill), or refuses a prefill. */
  readonly fallback: 'ok' | 'no-prefill';
  /** `answer`: the complete answer is the rescue; `error`: a clean error is. */
  readonly ideal: 'answer' | 'error';
  /** Longest the call may take before it counts as a hang, ms (full timings). */
  readonly maxWallMs: number;
  readonly checks: readonly Check[];
}

const noHang: Check = { id: 'no_hang', kind: 'no-hang' };
const noTruncated: Check = { id: 'no_truncated_success', kind: 'no-truncated-success' };

/** S01–S14 and S16, one call each; S15 (the flapping primary) runs as a sequence of its own. */
export const SCENARIOS: readonly Scenario[] = [
  { id: 'S01', title: '429 with Retry-After', fault: 'rate-limit-once', fallback: 'ok', ideal: 'answer', maxWallMs: 20_000, checks: [
    { id: 'retried', kind: 'primary-min', value: 2, advisory: true },
    { id: 'retry_after_honoured', kind: 'retry-after-honoured', value: 0.9, advisory: true, unscaled: true },
    { id: 'no_hammer', kind: 'attempts-within', windowMs: 1_500, value: 2, unscaled: true },
  ] },
  { id: 'S02', title: '429 without Retry-After, persistent', fault: 'rate-limit', fallback: 'ok', ideal: 'answer', maxWallMs: 40_000, checks: [
    { id: 'no_hammer', kind: 'attempts-within', windowMs: 3_000, value: 4 },
    { id: 'bounded_attempts', kind: 'primary-max', value: 6 },
    noHang,
  ] },
  { id: 'S03', title: '500 once, then healthy', fault: 'error-once', fallback: 'ok', ideal: 'answer', maxWallMs: 20_000, checks: [
    noHang,
    { id: 'same_provider_retry', kind: 'primary-min', value: 2, advisory: true },
  ] },
  { id: 'S04', title: '503 persistent', fault: 'overloaded', fallback: 'ok', ideal: 'answer', maxWallMs: 40_000, checks: [
    { id: 'bounded_attempts', kind: 'primary-max', value: 6 },
    noHang,
  ] },
  { id: 'S05', title: 'TCP reset before headers', fault: 'reset-once', fallback: 'ok', ideal: 'answer', maxWallMs: 20_000, checks: [noHang] },
  { id: 'S06', title: 'No response at all', fault: 'silent', fallback: 'ok', ideal: 'answer', maxWallMs: 130_000, checks: [
    { id: 'within_budget', kind: 'wall-max', value: 100_000 },
    noHang,
    { id: 'silent_route_not_retried', kind: 'primary-max', value: 1, advisory: true },
  ] },
  { id: 'S07', title: 'Slow first token', fault: 'slow-first-token', fallback: 'ok', ideal: 'answer', maxWallMs: 60_000, checks: [
    noHang,
    { id: 'ttft_limit', kind: 'wall-max', value: 15_000, advisory: true },
  ] },
  { id: 'S08', title: 'Stream cut mid-answer', fault: 'cut', fallback: 'ok', ideal: 'answer', maxWallMs: 40_000, checks: [noTruncated, noHang] },
  { id: 'S09', title: 'Stream stalls', fault: 'stall', fallback: 'ok', ideal: 'answer', maxWallMs: 70_000, checks: [
    { id: 'bounded', kind: 'wall-max', value: 45_000 },
    noTruncated,
    { id: 'alive_after', kind: 'alive-after' },
    noHang,
  ] },
  { id: 'S10', title: 'Malformed chunk in the stream', fault: 'malformed', fallback: 'ok', ideal: 'answer', maxWallMs: 30_000, checks: [
    { id: 'alive_after', kind: 'alive-after' },
    { id: 'no_garbage', kind: 'no-truncated-success' },
    noHang,
    { id: 'recovered_in_place', kind: 'complete', advisory: true },
  ] },
  { id: 'S11', title: 'Stream ends without [DONE]', fault: 'no-done', fallback: 'ok', ideal: 'answer', maxWallMs: 30_000, checks: [
    { id: 'prompt_finalise', kind: 'wall-max', value: 8_000 },
    { id: 'usage_reported', kind: 'usage-present', advisory: true },
  ] },
  { id: 'S12', title: 'Context length exceeded', fault: 'context-length', fallback: 'ok', ideal: 'answer', maxWallMs: 20_000, checks: [
    { id: 'no_same_model_retry', kind: 'primary-eq', value: 1 },
    noHang,
  ] },
  { id: 'S13', title: 'Content-filter rejection', fault: 'content-filter', fallback: 'ok', ideal: 'error', maxWallMs: 20_000, checks: [
    { id: 'no_same_model_retry', kind: 'primary-eq', value: 1 },
    noHang,
    { id: 'fallback_attempted', kind: 'fallback-used', informational: true },
  ] },
  { id: 'S14', title: 'Fallback target rejects prefill', fault: 'cut', fallback: 'no-prefill', ideal: 'answer', maxWallMs: 40_000, checks: [
    { id: 'no_prefill_masking', kind: 'no-prefill-masking' },
    noTruncated,
  ] },
  { id: 'S16', title: 'Fail-over accounting', fault: 'overloaded', fallback: 'ok', ideal: 'answer', maxWallMs: 40_000, checks: [
    { id: 'reports_fallback_model', kind: 'reports-fallback' },
    { id: 'usage_present', kind: 'usage-present', advisory: true },
    { id: 'bounded_attempts', kind: 'primary-max', value: 6 },
  ] },
];

/** S15: twenty requests four seconds apart across a primary that answers 503 for its first sixty seconds. */
export const FLAP = {
  id: 'S15',
  title: 'Primary flaps: down, then healthy',
  count: 20,
  intervalMs: 4_000,
  downMs: 60_000,
  perRequestMaxWallMs: 30_000,
  /** The primary must answer again within this long after it recovered. */
  recoveredWithinMs: 30_000,
} as const;

/** A cell's verdict. */
export type Verdict = 'pass' | 'partial' | 'safe' | 'fail';

/** What a scenario's checks found, and the verdict they make. */
export interface Scored {
  readonly verdict: Verdict;
  /** Each scored check: its id and whether it held. */
  readonly checks: ReadonlyArray<{ id: string; ok: boolean; advisory: boolean; informational: boolean }>;
  readonly rescued: boolean;
}

/** The outcome of a call as the methodology scores it. */
export interface Observed {
  /** The call succeeded (no error at the end). */
  readonly success: boolean;
  /** The success's text is the whole answer. */
  readonly complete: boolean;
  /** The call ended with an error that a client can read (not a hang, not a silent end). */
  readonly cleanError: boolean;
  readonly hung: boolean;
}

/** Combines the rescue with the checks, as the methodology scores a cell. */
export function verdictOf(scenario: Scenario, observed: Observed, checks: Scored['checks']): Scored {
  const rescued = scenario.ideal === 'error' ? !observed.success && observed.cleanError : observed.success && observed.complete;
  const scoredChecks = checks.filter((c) => !c.informational);
  const requiredFailed = scoredChecks.some((c) => !c.ok && !c.advisory);
  const advisoryFailed = scoredChecks.some((c) => !c.ok && c.advisory);
  const truncated = observed.success && !observed.complete && scenario.ideal === 'answer';
  let verdict: Verdict;
  if (observed.hung || truncated || requiredFailed) verdict = 'fail';
  else if (rescued) verdict = advisoryFailed ? 'partial' : 'pass';
  else if (scenario.ideal === 'error' && observed.success) verdict = 'partial';
  else verdict = observed.cleanError ? 'safe' : 'fail';
  return { verdict, checks, rescued };
}
