import type { ChatDelta, ChatRequestBody } from '../../providers/index.js';

/** The partial answer as a route continues it, and the whitespace the client already has beyond it. */
export interface Prefill {
  /** The answer so far without trailing whitespace (Anthropic refuses a prefill that ends in it). */
  readonly text: string;
  /** Trailing whitespace the client already got: the continuation's own leading whitespace stands in for it. */
  readonly owed: string;
}

/** The prefill of an answer delivered so far. */
export function prefillOf(answer: string): Prefill {
  const text = answer.trimEnd();
  return { text, owed: answer.slice(text.length) };
}

/**
 * The request a continuing route gets: the same conversation with the partial answer as a
 * trailing assistant message, and an output limit less what the answer already produced
 * (the route's body carries exactly one limit field; at least 1 token is asked for).
 */
export function prefillBody(body: ChatRequestBody, prefill: Prefill, producedTokens: number): ChatRequestBody {
  const field = body.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  const limit = body[field];
  const next: ChatRequestBody = { ...body, messages: [...body.messages, { role: 'assistant', content: prefill.text }] };
  if (limit !== undefined) next[field] = Math.max(1, limit - producedTokens);
  return next;
}

/** Whether a delta still says anything once reshaped (its text, a finish, tool calls, log probabilities…). */
function saysSomething(choice: ChatDelta): boolean {
  return choice.finish_reason !== null || choice.logprobs !== undefined || Object.values(choice.delta).some((v) => v !== undefined && v !== '');
}

/**
 * Reshapes a continuing route's deltas so the client sees one answer: no second `role`, and
 * the leading whitespace the client already has (the prefill's trimmed tail) not sent again.
 */
export function continuationDeltas(prefill: Prefill): (choices: ChatDelta[]) => ChatDelta[] {
  let owed = prefill.owed.length;
  return (choices) =>
    choices.flatMap((choice) => {
      const { role: _role, ...delta } = choice.delta;
      if (owed > 0 && typeof delta.content === 'string' && delta.content !== '') {
        let skip = 0;
        while (skip < owed && skip < delta.content.length && /\s/.test(delta.content[skip] as string)) skip++;
        // Text that does not start with whitespace settles the debt: the words already stand apart.
        owed = skip === delta.content.length ? owed - skip : 0;
        delta.content = delta.content.slice(skip);
      }
      const shaped = { ...choice, delta };
      return saysSomething(shaped) ? [shaped] : [];
    });
}
