/** The shares of a cap window at which `budget.threshold` fires, in percent. */
export const BUDGET_THRESHOLDS = [50, 80, 95, 100] as const;

/** The thresholds a spend has reached against a cap (all of them at or below the spend). */
export function reachedThresholds(spend: bigint, cap: bigint): number[] {
  if (cap <= 0n) return [];
  return BUDGET_THRESHOLDS.filter((pct) => spend * 100n >= cap * BigInt(pct));
}

/** The balance events an account's state calls for, in the order they should go out. */
export function balanceEvents(balance: bigint, funded: bigint, lowThreshold: bigint | undefined): Array<'balance.low' | 'balance.depleted'> {
  // An account never funded has nothing to run out of: its zero balance is no news.
  if (funded <= 0n) return [];
  const events: Array<'balance.low' | 'balance.depleted'> = [];
  if (lowThreshold !== undefined && lowThreshold > 0n && balance <= lowThreshold) events.push('balance.low');
  if (balance <= 0n) events.push('balance.depleted');
  return events;
}
