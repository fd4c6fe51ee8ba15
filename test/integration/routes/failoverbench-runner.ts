import { CANONICAL_ANSWER, type Fault, type SeenRequest } from '../../fixtures/upstreams/faulty-openai.js';
import { adminClient, call } from '../../helpers/admin-client.js';
import { type CallOutcome, callDoor, type Door, requestBody } from './failoverbench-calls.js';
import { type Check, type Scenario, SCENARIOS, type Scored, verdictOf } from './failoverbench-table.js';
import { type BenchWorld, type Instance, SCALE, scaled, SLACK_MS, TIMINGS } from './failoverbench-world.js';

/** One scenario run through one door, streamed or not: both views, the record and the verdict. */
export interface Cell {
  readonly scenario: Scenario;
  readonly door: Door;
  readonly stream: boolean;
  readonly instance: Instance;
  readonly outcome: CallOutcome;
  /** What the provider saw on the primary route and on the fallback. */
  readonly primary: readonly SeenRequest[];
  readonly fallback: readonly SeenRequest[];
  /** The request's record at the gateway (attempts, answering provider). */
  readonly record: Record<string, any>;
  /** The quote's hold for the same request, USD. */
  readonly holdUsd: number;
  readonly scored: Scored;
}

const words = (text: string): string => text.trim().split(/\s+/).join(' ');

/** The whole answer, whitespace aside. */
export function isComplete(text: string): boolean {
  return words(text) === words(CANONICAL_ANSWER);
}

/** The provider's own delay in a scenario, ms (scaled), when its fault is one. */
function faultDelay(fault: Fault): number | undefined {
  if (fault === 'slow-first-token') return TIMINGS.slowFirstTokenMs;
  if (fault === 'silent') return TIMINGS.silentMs;
  if (fault === 'stall') return TIMINGS.stallMs;
  return undefined;
}

/**
 * A wall-time limit of the benchmark as this run holds it: scaled, plus the machine's slack,
 * except that where the limit is there to beat the provider's own delay (S07's 15 s against a
 * first token at 20 s), the slack never lets through a call that waited that delay out. The
 * caller passes no fault for a call that moved on to the fallback: that call did not wait.
 */
function wallLimit(fullMs: number, fault?: Fault): number {
  const limit = scaled(fullMs);
  const delay = fault === undefined ? undefined : faultDelay(fault);
  return delay !== undefined && limit < delay ? Math.min(limit + SLACK_MS, delay) : limit + SLACK_MS;
}

/** Whether one check held. */
function holds(check: Check, cell: Omit<Cell, 'scored'>, alive: CallOutcome | undefined): boolean {
  const { outcome, primary, fallback } = cell;
  const success = outcome.status === 200 && outcome.error === undefined && outcome.ended;
  const window = (ms: number): number => (check.unscaled === true ? ms : scaled(ms));
  switch (check.kind) {
    case 'no-hang':
      return outcome.ended && outcome.wallMs <= wallLimit(cell.scenario.maxWallMs);
    case 'complete':
      return success && isComplete(outcome.text);
    case 'no-truncated-success':
      return !success || isComplete(outcome.text);
    case 'primary-min':
      return primary.length >= (check.value ?? 0);
    case 'primary-max':
      return primary.length <= (check.value ?? 0);
    case 'primary-eq':
      return primary.length === check.value;
    case 'retry-after-honoured':
      return primary.length >= 2 && (primary[1] as SeenRequest).at - (primary[0] as SeenRequest).at >= (check.value ?? 1) * TIMINGS.retryAfterSeconds * 1000;
    case 'attempts-within':
      return primary.filter((r) => r.at - (primary[0]?.at ?? 0) <= window(check.windowMs ?? 0)).length <= (check.value ?? 0);
    case 'wall-max':
      return outcome.wallMs <= wallLimit(check.value ?? 0, fallback.length > 0 ? undefined : cell.scenario.fault);
    case 'alive-after':
      return alive !== undefined && alive.status === 200 && alive.error === undefined && isComplete(alive.text) && alive.wallMs <= wallLimit(10_000);
    case 'fallback-used':
      return fallback.length > 0;
    case 'reports-fallback':
      return cell.instance.fallbackModel !== undefined ? outcome.model === cell.instance.fallbackModel : cell.record.provider !== 'wall';
    case 'usage-present':
      return outcome.usage !== undefined;
    case 'no-prefill-masking':
      return success || !fallback.some((r) => r.action === '400 prefill refused');
  }
}

/** The stored record of a request, once written. */
export async function recordOf(world: BenchWorld, requestId: string): Promise<Record<string, any>> {
  await world.gw.deps.requests.drain();
  const res = await adminClient(world.gw.url).call('GET', `/requests/${requestId}`);
  if (res.status !== 200) throw new Error(`record ${requestId}: ${res.status}`);
  return res.body.data as Record<string, any>;
}

/** One cell to run: its scenario, door and mode, with its models already in the catalog. */
interface CellPlan {
  readonly scenario: Scenario;
  readonly door: Door;
  readonly stream: boolean;
  readonly instance: Instance;
  /** The healthy model of the alive probe, when the scenario has one. */
  readonly probe: Instance | undefined;
}

/** Cells timed at once: enough to keep the run short, few enough that the cells' own load stays inside the machine's slack. */
const CELLS_AT_ONCE = 8;

/** Puts one cell's models (and its alive probe's) in the catalog. */
async function planCell(world: BenchWorld, scenario: Scenario, door: Door, stream: boolean): Promise<CellPlan> {
  const tag = `${scenario.id.toLowerCase()}-${door}-${stream ? 'stream' : 'whole'}`;
  const instance = await world.instance(tag, scenario.fault, scenario.fallback, door === 'chat');
  const needsAlive = scenario.checks.some((c) => c.kind === 'alive-after');
  const probe = needsAlive ? await world.instance(`${tag}-alive`, 'ok', 'ok', false) : undefined;
  return { scenario, door, stream, instance, probe };
}

/**
 * Runs every scenario through each door, streamed and not. All catalog writes come first, and
 * the timed calls run a few at a time, so no cell's wall time carries the others' setup.
 */
export async function runCells(world: BenchWorld, doors: readonly Door[]): Promise<Cell[]> {
  const plans: CellPlan[] = [];
  for (const door of doors) {
    for (const scenario of SCENARIOS) for (const stream of [true, false]) plans.push(await planCell(world, scenario, door, stream));
  }
  // Longest first, so the run ends soon after its slowest cell.
  plans.sort((a, b) => b.scenario.maxWallMs - a.scenario.maxWallMs);
  const cells: Cell[] = [];
  const lane = async (): Promise<void> => {
    for (let plan = plans.shift(); plan !== undefined; plan = plans.shift()) cells.push(await runCell(world, plan));
  };
  await Promise.all(Array.from({ length: CELLS_AT_ONCE }, lane));
  return cells;
}

/** Runs one planned cell and scores it as the methodology does. */
async function runCell(world: BenchWorld, plan: CellPlan): Promise<Cell> {
  const { scenario, door, stream, instance, probe } = plan;
  const body = requestBody(door, instance.model, stream, instance.fallbackModel);
  const quote = await call(world.gw.url, 'POST', '/v1/quote', { token: world.key.raw, body: { endpoint: door === 'chat' ? 'chat/completions' : door, body } });
  if (quote.status !== 200) throw new Error(`quote ${quote.status} ${JSON.stringify(quote.body)}`);
  const outcome = await callDoor(world.gw.url, world.key.raw, door, body);
  // The benchmark's alive probe: a healthy call through the same door afterwards.
  const alive = probe === undefined ? undefined : await callDoor(world.gw.url, world.key.raw, door, requestBody(door, probe.model, stream));
  const cell = {
    scenario, door, stream, instance, outcome,
    primary: world.wall.requestsOf(instance.primaryUpstream),
    fallback: world.wall.requestsOf(instance.fallbackUpstream),
    record: outcome.requestId === '' ? {} : await recordOf(world, outcome.requestId),
    holdUsd: Number(quote.body.data.hold_usd),
  };
  const checks = scenario.checks.map((check) => ({ id: check.id, ok: holds(check, cell, alive), advisory: check.advisory === true, informational: check.informational === true }));
  const success = outcome.status === 200 && outcome.error === undefined && outcome.ended;
  const observed = {
    success,
    complete: isComplete(outcome.text),
    cleanError: outcome.error !== undefined && outcome.ended,
    hung: !outcome.ended || outcome.wallMs > wallLimit(scenario.maxWallMs),
  };
  return { ...cell, scored: verdictOf(scenario, observed, checks) };
}

/** One line of a scorecard: the cell's verdict, attempts on each route (primary/fallback) and wall time of the scaled run. */
export function scoreLine(cell: Cell): string {
  const failed = cell.scored.checks.filter((c) => !c.ok && !c.informational).map((c) => `${c.id}${c.advisory ? ' (advisory)' : ''}`);
  const where = `${cell.door} ${cell.stream ? 'streamed' : 'whole'}`;
  return `${cell.scenario.id} ${cell.scenario.title} | ${where} | ${cell.scored.verdict} | ${cell.primary.length}p/${cell.fallback.length}f | ${cell.outcome.wallMs.toFixed(0)} ms at 1/${SCALE}${failed.length > 0 ? ` | failed: ${failed.join(', ')}` : ''}`;
}
