import { NOT_MEASURED, TARGETS } from './bench-targets.js';
import { callgrindAvailable } from './callgrind-dumps.js';
import { profileComponents, SAMPLE_INTERVAL_US } from './component-profile.js';
import type { ComponentSplit } from './component-split.js';
import { COUNTED_REQUESTS, countInstructions, RUNS, WARM_UP_REQUESTS, type InstructionCount } from './instruction-counts.js';
import type { Measurement } from './report-rows.js';
import type { ScenarioContext, ScenarioOutput } from './scenario-context.js';

type Figure = 'perRequest' | 'mainThreadPerRequest';

const millions = (n: number): string => `${(n / 1e6).toFixed(2)} M`;

/** `floor 1.31 M (1.30–1.33), Farebox …`: the median run and the spread of all runs. */
function spread(counts: readonly InstructionCount[], figure: Figure): string {
  return counts
    .map((c) => {
      const values = c.runs.map((r) => r[figure]);
      const refused = c.runs.reduce((sum, r) => sum + r.refused, 0);
      return `${c.relay} ${millions(c[figure])} (runs ${values.map(millions).join(', ')}${refused > 0 ? `; ${refused} calls refused with 503 and sent again` : ''})`;
    })
    .join('; ');
}

function instructionRows(counts: readonly InstructionCount[]): Measurement[] {
  const of = (relay: InstructionCount['relay'], figure: Figure) => counts.find((c) => c.relay === relay)?.[figure] ?? null;
  const row = (id: string, scenario: string, figure: Figure, extra: Partial<Measurement> = {}): Measurement => ({
    id,
    scenario,
    unit: 'instr',
    floor: of('floor', figure),
    farebox: of('farebox', figure),
    portkey: null,
    portkeyNote: NOT_MEASURED,
    note: `median of ${RUNS} runs: ${spread(counts, figure)}`,
    steal: null,
    ...extra,
  });
  return [
    row('chat-instructions', 'instructions per non-streamed chat, all threads (callgrind, steady state)', 'perRequest'),
    row('chat-instructions-main', 'instructions per non-streamed chat, event-loop thread (callgrind, steady state)', 'mainThreadPerRequest', { target: TARGETS.eventLoopInstructions }),
  ];
}

/** Farebox's event-loop figure split by the CPU profile's shares, one row per component. */
function componentRows(split: ComponentSplit, eventLoop: number | null): Measurement[] {
  return split.components.map((c) => ({
    id: `chat-instructions-main-${c.component.replace(/[^a-z]+/gi, '-').replace(/-+$/, '').toLowerCase()}`,
    scenario: `  of which ${c.component} (${(c.share * 100).toFixed(1)}% of profile)`,
    unit: 'instr',
    floor: null,
    farebox: eventLoop === null ? null : Math.round(c.share * eventLoop),
    portkey: null,
    steal: null,
  }));
}

/**
 * Instructions per non-streamed chat in steady state, floor and Farebox (all threads and the
 * event-loop thread, callgrind, median of three runs, idle rate subtracted), and Farebox's
 * event-loop figure split by component with the shares of a native CPU profile of the same mix.
 */
export async function instructionsScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  if (!callgrindAvailable()) {
    const why = 'valgrind (callgrind) is not installed';
    return { rows: instructionRows([]).map((row) => ({ ...row, note: why })), details: { instructions: why } };
  }
  const split = await profileComponents(ctx);
  const plan = { warmUpRequests: WARM_UP_REQUESTS, countedRequests: COUNTED_REQUESTS, runs: RUNS };
  let counts: InstructionCount[];
  try {
    counts = await countInstructions(ctx);
  } catch (err) {
    // The profile's shares stand on their own; the rows say why there is no count to apply them to.
    const why = `the callgrind runs failed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`;
    ctx.log(why);
    const rows = [...instructionRows([]).map((row) => ({ ...row, valid: false, note: why })), ...componentRows(split, null)];
    return { rows, details: { ...plan, instructions: why, componentSplit: { ...split, eventLoopPerRequest: null } } };
  }
  const eventLoop = counts.find((c) => c.relay === 'farebox')?.mainThreadPerRequest ?? null;
  const rows = [...instructionRows(counts), ...componentRows(split, eventLoop)];
  return { rows, details: { ...plan, instructions: counts, componentSplit: { ...split, eventLoopPerRequest: eventLoop } } };
}

/**
 * The component split alone (`--only=components`): the native profile of the instruction
 * count's mix, in minutes rather than callgrind's half hour, to see what one change moved. The
 * rows carry the shares; busy time per call is in the details.
 */
export async function componentsScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const split = await profileComponents(ctx);
  const busyUsPerCall = (split.samples * SAMPLE_INTERVAL_US) / split.requests;
  ctx.log(`component profile: ${busyUsPerCall.toFixed(0)} µs busy per call (sampled)`);
  return { rows: componentRows(split, null), details: { componentSplit: { ...split, eventLoopPerRequest: null, busyUsPerCall } } };
}
