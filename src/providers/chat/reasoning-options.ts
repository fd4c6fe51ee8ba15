import type { ChatRequestBody, ChatResult, ChatStreamEvent, ReasoningOptions } from './chat-types.js';

/** The reasoning a client asked for, normalised from `reasoning` and legacy `include_reasoning`. */
export interface ReasoningRequest {
  /** Whether the model should reason at all. */
  enabled: boolean;
  /** Effort level; set whenever `enabled` (derived from a token budget or "medium" by default). */
  effort?: NonNullable<ReasoningOptions['effort']>;
  /** Explicit token budget (`reasoning.max_tokens`). */
  maxTokens?: number;
  /** Reason, but keep the reasoning out of the answer. */
  exclude: boolean;
}

/** Budgets at or under these token counts map to the effort beside them. */
const EFFORT_BY_BUDGET: ReadonlyArray<readonly [number, NonNullable<ReasoningOptions['effort']>]> = [
  [1024, 'low'],
  [8192, 'medium'],
];

function effortForBudget(maxTokens: number): NonNullable<ReasoningOptions['effort']> {
  for (const [limit, effort] of EFFORT_BY_BUDGET) if (maxTokens <= limit) return effort;
  return 'high';
}

type Effort = NonNullable<ReasoningOptions['effort']>;

/** OpenAI `reasoning_effort` values → effort levels; `none` turns reasoning off. */
const EFFORT_OF_OPENAI: Readonly<Record<string, Effort | 'none'>> = {
  none: 'none',
  minimal: 'minimal',
  low: 'low',
  medium: 'medium',
  high: 'high',
  xhigh: 'high',
};

/** OpenAI's `reasoning_effort` as an effort level, `none`, or undefined when absent/unknown. */
function openAiEffort(value: unknown): Effort | 'none' | undefined {
  return typeof value === 'string' ? EFFORT_OF_OPENAI[value] : undefined;
}

/**
 * Normalises the reasoning inputs clients send: OpenRouter's `reasoning` object (any object
 * unless `enabled: false` turns reasoning on), else OpenAI's `reasoning_effort` (what the AI
 * SDK sends; `none` turns it off), else legacy `include_reasoning: true`. `include_reasoning:
 * false` or `reasoning.exclude` keeps reasoning out of the answer.
 */
export function readReasoning(body: Pick<ChatRequestBody, 'reasoning' | 'include_reasoning' | 'reasoning_effort'>): ReasoningRequest {
  const options = body.reasoning;
  const exclude = options?.exclude === true || body.include_reasoning === false;
  const openAi = openAiEffort(body.reasoning_effort);
  let enabled: boolean;
  if (options !== undefined) enabled = options.enabled !== false;
  else if (openAi !== undefined) enabled = openAi !== 'none';
  else enabled = body.include_reasoning === true;
  if (!enabled) return { enabled, exclude };
  const maxTokens = options?.max_tokens;
  const requested = options?.effort ?? (openAi === 'none' ? undefined : openAi);
  const effort = requested ?? (maxTokens !== undefined ? effortForBudget(maxTokens) : 'medium');
  return maxTokens === undefined ? { enabled, effort, exclude } : { enabled, effort, maxTokens, exclude };
}

/** Removes reasoning from a finished result (for `exclude`). */
export function withoutReasoning(result: ChatResult): ChatResult {
  const choices = result.choices.map((choice) => {
    const { reasoning: _dropped, ...message } = choice.message;
    return { ...choice, message };
  });
  return { ...result, choices };
}

/**
 * Removes reasoning from a stream item (for `exclude`); returns undefined when nothing is left
 * worth sending.
 */
export function streamEventWithoutReasoning(event: ChatStreamEvent): ChatStreamEvent | undefined {
  if (event.kind !== 'delta') return event;
  const choices = event.choices.flatMap((choice) => {
    if (choice.delta.reasoning === undefined) return [choice];
    const { reasoning: _dropped, ...delta } = choice.delta;
    const empty = Object.keys(delta).length === 0 && choice.finish_reason === null;
    return empty ? [] : [{ ...choice, delta }];
  });
  return choices.length === 0 ? undefined : { kind: 'delta', choices };
}
