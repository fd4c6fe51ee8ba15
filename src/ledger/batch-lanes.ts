import type { ChargeRequest } from './apply-charges.js';

/**
 * The documents a charge writes besides its own entry, named once: its account (balance,
 * charged, absorbed) and its key (its lifetime and day spend). Two batches that share none of
 * these lanes write disjoint documents, so their transactions can commit side by side
 * without write conflicts, and their outcomes do not depend on which commits first.
 */
export function lanesOf(request: ChargeRequest): string[] {
  return [`a:${request.accountId}`, `k:${request.keyId}`];
}

/** Lanes held by the batches in flight. */
export class BatchLanes {
  private readonly held = new Set<string>();

  /** Whether a batch in flight holds any of these lanes. */
  busy(lanes: readonly string[]): boolean {
    return lanes.some((l) => this.held.has(l));
  }

  /** Marks the lanes of a batch's charges as held; returns them (once each) for `release`. */
  claim(charged: readonly string[]): string[] {
    const lanes = [...new Set(charged)];
    for (const l of lanes) this.held.add(l);
    return lanes;
  }

  /** Frees the lanes of a batch that finished (committed or failed). */
  release(lanes: readonly string[]): void {
    for (const l of lanes) this.held.delete(l);
  }
}
