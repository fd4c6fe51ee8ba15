/**
 * Results of a pure function remembered per string argument, at most `max` of them. When the
 * table is full it is emptied rather than kept in order: the callers' arguments repeat a lot
 * (upstream URLs, tokenizer pieces), so a refill is cheap and no bookkeeping runs per call.
 */
export class BoundedMemo<V> {
  private readonly values = new Map<string, V>();

  constructor(
    private readonly compute: (key: string) => V,
    private readonly max: number,
  ) {}

  /** The remembered result for `key`, computed on first use (a throw is not remembered). */
  get(key: string): V {
    let value = this.values.get(key);
    if (value === undefined) {
      value = this.compute(key);
      if (this.values.size >= this.max) this.values.clear();
      this.values.set(key, value);
    }
    return value;
  }

  /** Forgets every result (the function changed). */
  clear(): void {
    this.values.clear();
  }
}
