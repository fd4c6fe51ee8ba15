import type { RateInfo } from './rate-info.js';
import { rateInfoOf } from './rate-check.js';

/** Receives a request's rate figures (undefined: none to show), e.g. to set `X-RateLimit-*`. */
export type RateReport = (info: RateInfo | undefined) => void;

/**
 * A request's RPM check, not yet run. Admission runs it inside its one script, ahead of every
 * refusal of that script, so an admitted request costs one Redis round trip instead of two.
 * A request refused before it reaches admission (body, model, allowlist, provider) runs the
 * check on its own with {@link DeferredRate.runAlone} first, so a rate-limited key still gets
 * its 429 before any of those refusals (DESIGN §4.4 order) and every request is counted once.
 */
export class DeferredRate {
  private done = false;

  constructor(
    private readonly standalone: () => Promise<RateInfo>,
    private readonly report: RateReport,
  ) {}

  /** True until the check has run (inside admission or on its own). */
  get pending(): boolean {
    return !this.done;
  }

  /** Takes the outcome of the check admission ran: reports its figures, or throws its 429. */
  settle(outcome: () => RateInfo | undefined): void {
    this.done = true;
    let info: RateInfo | undefined;
    try {
      info = outcome();
    } catch (err) {
      this.report(rateInfoOf(err));
      throw err;
    }
    this.report(info);
  }

  /** Runs the check on its own unless admission ran it; throws the 429 when refused. */
  async runAlone(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const info = await this.standalone().catch((err: unknown) => {
      this.report(rateInfoOf(err));
      throw err;
    });
    this.report(info);
  }

}
