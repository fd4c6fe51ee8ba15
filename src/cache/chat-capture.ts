import type { ChunkSink, TranslatedPlan } from '../chat/index.js';
import { LogprobsParts } from './chat-logprobs.js';
import { isRecord } from '../providers/index.js';

/** Told once with a complete answer, in chat-completions form, after its charge is durable. */
export type CompleteAnswer = (completion: Record<string, unknown>) => void;

/** Finish reasons of answers that are not kept: a filtered, failed or unfinished choice. */
const UNKEPT_FINISH = new Set(['content_filter', 'error']);


/** Whether every choice of an answer finished normally (so it may be said again). */
export function finishedNormally(choices: unknown): boolean {
  if (!Array.isArray(choices) || choices.length === 0) return false;
  return choices.every((c) => isRecord(c) && typeof c.finish_reason === 'string' && !UNKEPT_FINISH.has(c.finish_reason));
}

interface ToolCallParts {
  id?: string;
  type?: string;
  name: string;
  args: string;
}

/** One choice being put back together from its deltas. */
class ChoiceParts {
  content: string | undefined;
  reasoning: string | undefined;
  refusal: string | undefined;
  annotations: unknown[] = [];
  tools = new Map<number, ToolCallParts>();
  readonly logprobs = new LogprobsParts();
  finish: unknown = null;

  add(choice: Record<string, unknown>): void {
    const delta = isRecord(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string') this.content = (this.content ?? '') + delta.content;
    if (typeof delta.reasoning === 'string') this.reasoning = (this.reasoning ?? '') + delta.reasoning;
    if (typeof delta.refusal === 'string') this.refusal = (this.refusal ?? '') + delta.refusal;
    if (Array.isArray(delta.annotations)) this.annotations.push(...delta.annotations);
    if (Array.isArray(delta.tool_calls)) for (const call of delta.tool_calls) if (isRecord(call)) this.addTool(call);
    this.logprobs.add(choice.logprobs);
    if (choice.finish_reason !== null && choice.finish_reason !== undefined) this.finish = choice.finish_reason;
  }

  private addTool(call: Record<string, unknown>): void {
    const index = typeof call.index === 'number' ? call.index : 0;
    const parts = this.tools.get(index) ?? { name: '', args: '' };
    const fn = isRecord(call.function) ? call.function : {};
    if (typeof call.id === 'string') parts.id = call.id;
    if (typeof call.type === 'string') parts.type = call.type;
    if (typeof fn.name === 'string') parts.name += fn.name;
    if (typeof fn.arguments === 'string') parts.args += fn.arguments;
    this.tools.set(index, parts);
  }

  /** The choice as a non-streamed answer shows it (see choiceWire). */
  wire(index: number): Record<string, unknown> {
    const message: Record<string, unknown> = { role: 'assistant', content: this.content ?? null };
    if (this.tools.size > 0) {
      message.tool_calls = [...this.tools.entries()].sort(([a], [b]) => a - b).map(([, t]) => ({ id: t.id, type: t.type ?? 'function', function: { name: t.name, arguments: t.args } }));
    }
    if (this.annotations.length > 0) message.annotations = this.annotations;
    message.refusal = this.refusal ?? null;
    if (this.reasoning !== undefined) {
      message.reasoning = this.reasoning;
      message.reasoning_content = this.reasoning;
    }
    return { index, message, logprobs: this.logprobs.wire(), finish_reason: this.finish };
  }
}

/**
 * A chunk sink that passes everything on and, when the stream finishes normally, tells the
 * answer it carried, put back together as a non-streamed completion. A stream that reported
 * an error, lost its client (then `finish` is never called), lacked its usage chunk, carried
 * log probabilities it could not put back exactly or ended with a filtered choice is not told.
 */
class CapturingSink implements ChunkSink {
  private readonly choices = new Map<number, ChoiceParts>();
  private head: Record<string, unknown> | undefined;
  private usage: Record<string, unknown> | undefined;
  private failed = false;

  constructor(
    private readonly inner: ChunkSink,
    private readonly onComplete: CompleteAnswer,
  ) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  open(): void {
    this.inner.open();
  }

  send(chunk: unknown): Promise<void> {
    this.read(chunk);
    return this.inner.send(chunk);
  }

  async finish(): Promise<void> {
    const completion = this.failed || this.inner.closed ? undefined : this.completion();
    await this.inner.finish();
    if (completion !== undefined && finishedNormally(completion.choices)) this.onComplete(completion);
  }

  private read(chunk: unknown): void {
    if (!isRecord(chunk)) return;
    if (chunk.error !== undefined) this.failed = true;
    this.head ??= chunk;
    if (isRecord(chunk.usage)) this.usage = chunk.usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const choice of chunk.choices) {
      if (!isRecord(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const parts = this.choices.get(index) ?? new ChoiceParts();
      parts.add(choice);
      this.choices.set(index, parts);
    }
  }

  private completion(): Record<string, unknown> | undefined {
    if (this.head === undefined || this.usage === undefined) return undefined;
    if ([...this.choices.values()].some((parts) => !parts.logprobs.exact)) return undefined;
    const { id, created, model, provider } = this.head;
    const choices = [...this.choices.entries()].sort(([a], [b]) => a - b).map(([index, parts]) => parts.wire(index));
    return { id, object: 'chat.completion', created, model, ...(provider !== undefined ? { provider } : {}), choices, usage: this.usage };
  }
}

/**
 * The translated plan with its complete answers told to `onComplete`, streamed or not, in
 * chat-completions form.
 */
export function capturingChatPlan(plan: TranslatedPlan, onComplete: CompleteAnswer): TranslatedPlan {
  return {
    ...plan,
    answer(completion) {
      // The completion reports a durable charge: it exists only once the request settled.
      if (finishedNormally(completion.choices)) onComplete(completion);
      return plan.answer(completion);
    },
    sink: (events) => new CapturingSink(plan.sink(events), onComplete),
  };
}
