import { countTokensAsync } from '../../billing/index.js';
import type { ChatChoice, ChatDelta } from '../../providers/index.js';

/**
 * Collects what an answer produced (content, tool call names and arguments, and apart from
 * them reasoning) so it can be billed by a real token count when the upstream sent no usage.
 * Pieces are kept as lists and joined only if that count is ever needed.
 */
export class ProducedText {
  private readonly visible: string[] = [];
  private readonly reasoning: string[] = [];

  /** The text of a finished (non-streamed) answer. */
  static of(choices: readonly ChatChoice[]): ProducedText {
    const produced = new ProducedText();
    for (const { message } of choices) {
      if (message.reasoning) produced.reasoning.push(message.reasoning);
      if (message.content) produced.visible.push(message.content);
      for (const call of message.tool_calls ?? []) produced.visible.push(call.function.name, call.function.arguments);
    }
    return produced;
  }

  /** Adds the text of one chunk's deltas. */
  add(choices: readonly ChatDelta[]): void {
    for (const choice of choices) {
      const { content, reasoning, tool_calls: calls } = choice.delta;
      if (reasoning) this.reasoning.push(reasoning);
      if (content) this.visible.push(content);
      for (const call of calls ?? []) {
        if (call.function?.name) this.visible.push(call.function.name);
        if (call.function?.arguments) this.visible.push(call.function.arguments);
      }
    }
  }

  /** Adds text known only as a whole (a relayed event's text, thinking or tool input). */
  addText(text: string, kind: 'visible' | 'reasoning' = 'visible'): void {
    if (text !== '') (kind === 'visible' ? this.visible : this.reasoning).push(text);
  }

  /**
   * Tokens produced so far, visible and reasoning. Linear in the text: `countTokens` slices
   * any pre-token piece longer than 256 characters before BPE (see there for why the count
   * stays faithful), and it yields to the event loop on long texts.
   */
  async tokens(): Promise<{ visible: number; reasoning: number }> {
    return { visible: await countTokensAsync(this.visible.join('')), reasoning: await countTokensAsync(this.reasoning.join('')) };
  }
}
