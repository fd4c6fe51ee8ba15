import { type BilledUnits, chatUnits, type CostLine, type Nano, priceUnits } from '../../billing/index.js';
import type { TokenUsage } from '../../providers/index.js';
import type { AdmittedChat } from '../admit/chat-admit.js';
import { type ReportedUsage, settlementUsage } from './settlement-usage.js';

export type { ReportedUsage } from './settlement-usage.js';

/**
 * What one leg of an answer owes at its own route's prices: a whole answer has one leg, a
 * stream continued on another route after a cut has one per route it ran on.
 */
export interface BilledLeg {
  readonly usage: TokenUsage;
  readonly units: BilledUnits;
  /** Sum of `lines`, nano-USD (before any cap at the hold). */
  readonly metered: Nano;
  readonly lines: readonly CostLine[];
  /** Units the route has no price for (reported to the operator, never billed at $0 silently). */
  readonly unpriced: readonly string[];
  /** Where the counts came from: the upstream's report, or a count made here. */
  readonly source: 'upstream' | 'counted';
  /** The catalog id the leg's route serves (for logs). */
  readonly modelId: string;
}

/** Prices one leg's usage (see settlementUsage) at its route's prices; charges nothing. */
export async function billLeg(admitted: AdmittedChat, reported: ReportedUsage): Promise<BilledLeg> {
  const usage = await settlementUsage(admitted, reported);
  const source = reported.complete && reported.usage !== undefined ? 'upstream' : 'counted';
  const units = chatUnits(usage);
  const bill = priceUnits(admitted.model, units);
  return { usage, units, metered: bill.cost, lines: bill.lines, unpriced: bill.unpriced, source, modelId: admitted.model.id };
}

function add(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined && b === undefined ? undefined : (a ?? 0) + (b ?? 0);
}

/** The usage of several legs as one answer's: every count summed. */
export function sumUsage(legs: readonly BilledLeg[]): TokenUsage {
  let total: TokenUsage = { promptTokens: 0, completionTokens: 0, reasoningTokens: 0 };
  for (const { usage } of legs) {
    const optional = {
      cachedTokens: add(total.cachedTokens, usage.cachedTokens),
      cacheWriteTokens: add(total.cacheWriteTokens, usage.cacheWriteTokens),
      cacheWrite1hTokens: add(total.cacheWrite1hTokens, usage.cacheWrite1hTokens),
      webSearches: add(total.webSearches, usage.webSearches),
    };
    total = {
      promptTokens: total.promptTokens + usage.promptTokens,
      completionTokens: total.completionTokens + usage.completionTokens,
      reasoningTokens: total.reasoningTokens + usage.reasoningTokens,
      ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== undefined)),
    };
  }
  return total;
}

/** The billed units of several legs together, unit by unit. */
export function sumUnits(legs: readonly BilledLeg[]): BilledUnits {
  const total: BilledUnits = { prompt: 0, completion: 0 };
  for (const { units } of legs) {
    for (const [key, count] of Object.entries(units) as Array<[keyof BilledUnits, number | undefined]>) {
      if (count !== undefined) total[key] = (total[key] ?? 0) + count;
    }
  }
  return total;
}
