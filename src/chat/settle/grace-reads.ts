/**
 * The per-process bound on streams still read after their client left (for the upstream's
 * usage report). Those reads no longer hold their key's stream slot, so without a bound of
 * their own a flood of abandoned streams could pile up upstream calls; past it, a stream
 * whose client leaves is stopped at once and billed by the count of what it produced.
 */
export class GraceReads {
  private active = 0;

  constructor(readonly max: number) {}

  /** A permit to keep reading, or undefined when the bound is reached; call it to give it back. */
  take(): (() => void) | undefined {
    if (this.active >= this.max) return undefined;
    this.active += 1;
    let returned = false;
    return () => {
      if (returned) return;
      returned = true;
      this.active -= 1;
    };
  }

  /** Streams read on after their client left, now. */
  get inUse(): number {
    return this.active;
  }
}
