/**
 * What a shutdown left undone, counted as it happens so the exit log states facts an operator
 * can act on ("2 streams cut, 1 job returned to the queue"), never estimates.
 */
export class ShutdownReport {
  private readonly counts = new Map<string, number>();
  private readonly steps: string[] = [];

  /** Adds `count` occurrences of something left undone, e.g. `note('streams cut', 2)`. */
  note(what: string, count: number): void {
    if (count <= 0) return;
    this.counts.set(what, (this.counts.get(what) ?? 0) + count);
  }

  /** Records a shutdown step that did not finish (timed out or failed). */
  unfinished(step: string, why: 'timed out' | 'failed' | 'interrupted'): void {
    this.steps.push(`${step} ${why}`);
  }

  /** True when every step finished and nothing was counted. */
  get clean(): boolean {
    return this.counts.size === 0 && this.steps.length === 0;
  }

  /** The counts as a plain object, for structured logs. */
  toJSON(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** One line for the exit log: counts first, then unfinished steps. */
  summary(): string {
    if (this.clean) return 'nothing left undone';
    const counts = [...this.counts].map(([what, n]) => `${n} ${what}`);
    return [...counts, ...this.steps].join(', ');
  }
}
