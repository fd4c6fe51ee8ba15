import { isRecord } from '../providers/index.js';

/** The lists a choice's `logprobs` object holds, one entry per token. */
const LISTS: ReadonlySet<string> = new Set(['content', 'refusal']);

/**
 * One streamed choice's log probabilities put back together as a non-streamed choice has them:
 * each chunk's `content` and `refusal` lists joined in order. Anything else in them (a field
 * other than the two lists, a list that is not one) cannot be put back exactly: `exact`
 * turns false, and such an answer is not kept.
 */
export class LogprobsParts {
  private readonly lists = new Map<string, unknown[]>();
  private seen = false;
  exact = true;

  /** Reads one chunk's `choice.logprobs` (absent or null: none in that chunk). */
  add(logprobs: unknown): void {
    if (logprobs === undefined || logprobs === null) return;
    if (!isRecord(logprobs)) {
      this.exact = false;
      return;
    }
    this.seen = true;
    for (const [field, value] of Object.entries(logprobs)) {
      if (!LISTS.has(field) || (value !== null && !Array.isArray(value))) this.exact = false;
      else if (Array.isArray(value)) this.append(field, value);
    }
  }

  private append(field: string, entries: readonly unknown[]): void {
    const list = this.lists.get(field) ?? [];
    for (const entry of entries) list.push(entry);
    this.lists.set(field, list);
  }

  /** The choice's `logprobs`: null when no chunk carried any. */
  wire(): Record<string, unknown> | null {
    if (!this.seen) return null;
    return { content: this.lists.get('content') ?? null, refusal: this.lists.get('refusal') ?? null };
  }
}
