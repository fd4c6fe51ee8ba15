import type { ChatDelta } from '../../providers/index.js';

/**
 * The visible answer a stream has delivered so far, as another route would take it to
 * continue: the text of its one choice. Tool calls, several choices or a finish reason make
 * it an answer that a trailing assistant message cannot carry on.
 */
export class AnswerSoFar {
  private readonly parts: string[] = [];
  private blocked = false;

  /** Takes the deltas the client was sent. */
  add(choices: readonly ChatDelta[]): void {
    for (const choice of choices) {
      if (choice.index !== 0 || choice.finish_reason !== null || (choice.delta.tool_calls?.length ?? 0) > 0) this.blocked = true;
      if (choice.delta.content) this.parts.push(choice.delta.content);
    }
  }

  /** The text delivered so far. */
  get text(): string {
    return this.parts.join('');
  }

  /** Whether another route may continue it: some text, in one plain choice that has not finished. */
  get continuable(): boolean {
    return !this.blocked && this.parts.length > 0;
  }
}
