import type { ChatDelta } from '../chat/chat-types.js';
import type { LocalReply } from './local-chat-reply.js';

type Delta = ChatDelta['delta'];

/** Content deltas when the prompt sets no `[[local:chunks=N]]`. */
const DEFAULT_CHUNKS = 4;

/** Splits text into `count` pieces (fewer for short text) of similar length, never inside a code point. */
export function splitText(text: string, count: number): string[] {
  const chars = Array.from(text);
  const pieces = Math.max(1, Math.min(count, chars.length));
  const out: string[] = [];
  for (let i = 0; i < pieces; i++) {
    out.push(chars.slice(Math.floor((i * chars.length) / pieces), Math.floor(((i + 1) * chars.length) / pieces)).join(''));
  }
  return out.length === 0 || chars.length === 0 ? [''] : out;
}

/**
 * The deltas of one choice in order (without the role delta and the finish delta): reasoning
 * in two pieces, then the content or the tool call (id and name first, then argument pieces).
 */
export function replyDeltas(reply: LocalReply): Delta[] {
  const chunks = reply.directives.chunks ?? DEFAULT_CHUNKS;
  const out: Delta[] = [];
  if (reply.reasoning !== undefined) for (const piece of splitText(reply.reasoning, 2)) out.push({ reasoning: piece });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    out.push({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] });
    for (const piece of splitText(call.function.arguments, chunks)) {
      out.push({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  if (reply.content !== null) for (const piece of splitText(reply.content, chunks)) out.push({ content: piece });
  return out;
}
