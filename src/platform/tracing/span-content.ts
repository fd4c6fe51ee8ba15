import type { SpanAttributes } from './tracing.js';

/** Most characters of content one attribute carries; the rest is cut (and said to be). */
export const MAX_CONTENT_CHARS = 16_384;

function field(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;
}

/** JSON of a value, cut to {@link MAX_CONTENT_CHARS}; undefined for nothing. */
function bounded(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > MAX_CONTENT_CHARS ? `${text.slice(0, MAX_CONTENT_CHARS)}…[truncated]` : text;
}

/**
 * What a request body asked: `messages` (Chat Completions, Messages), `input` (Responses,
 * embeddings) or `prompt` (images), and Messages' `system` apart, as the GenAI conventions name
 * them. Only for spans when the operator turned content capture on.
 */
export function inputContent(body: unknown): SpanAttributes {
  const input = field(body, 'messages') ?? field(body, 'input') ?? field(body, 'prompt');
  return { 'gen_ai.input.messages': bounded(input), 'gen_ai.system_instructions': bounded(field(body, 'system')) };
}

/**
 * What a JSON answer said: Chat Completions' choices' messages, Responses' `output`, Messages'
 * `content`. Streams and binary answers (images) add nothing. Only with content capture on.
 */
export function outputContent(body: unknown): SpanAttributes {
  const choices = field(body, 'choices');
  const output = Array.isArray(choices) ? choices.map((c) => field(c, 'message')) : (field(body, 'output') ?? field(body, 'content'));
  return { 'gen_ai.output.messages': bounded(output) };
}
