import { countTokensAsync } from '../billing/token-count-async.js';
import type { ChatDelta } from '../providers/chat/chat-types.js';

/**
 * Collects what a stream produced (content, reasoning, tool call names and arguments) so a
 * stream cut short can be billed by a real token count when the upstream sent no usage.
 * Pieces are kept as a list and joined only if that count is ever needed.
 */
export class ProducedText {
  private readonly pieces: string[] = [];

  /** Adds the text of one chunk's deltas. */
  add(choices: readonly ChatDelta[]): void {
    for (const choice of choices) {
      const { content, reasoning, tool_calls: calls } = choice.delta;
      if (reasoning) this.pieces.push(reasoning);
      if (content) this.pieces.push(content);
      for (const call of calls ?? []) {
        if (call.function?.name) this.pieces.push(call.function.name);
        if (call.function?.arguments) this.pieces.push(call.function.arguments);
      }
    }
  }

  /**
   * Tokens of everything produced so far. Linear in the text: `countTokens` slices any
   * pre-token piece longer than 256 characters before BPE (see there for why the count
   * stays faithful), and it yields to the event loop on long texts, so a stream of one
   * repeated character cannot stall it.
   */
  tokens(): Promise<number> {
    return countTokensAsync(this.pieces.join(''));
  }
}
