import type { ErrorBody } from '../../platform/errors/index.js';
import { isRecord } from '../../providers/index.js';
import type { UsageWire } from '../wire/chat-wire.js';

/**
 * What one chat-completions stream chunk means to a front door that speaks another wire
 * format. The chat service emits OpenAI chunks; the fronts read them back into these parts,
 * so the chat service stays the single path for admission, streaming and settlement.
 */
export type ChunkPart =
  | { kind: 'reasoning'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'tool'; index: number; id: string | undefined; name: string | undefined; args: string }
  | { kind: 'finish'; reason: string }
  | { kind: 'error'; error: ErrorBody['error'] }
  | { kind: 'usage'; usage: UsageWire };

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function toolParts(calls: unknown): ChunkPart[] {
  if (!Array.isArray(calls)) return [];
  return calls.filter(isRecord).map((call) => {
    const fn = isRecord(call.function) ? call.function : {};
    const index = typeof call.index === 'number' ? call.index : 0;
    return { kind: 'tool', index, id: str(call.id), name: str(fn.name), args: str(fn.arguments) ?? '' };
  });
}

function choiceParts(choice: unknown): ChunkPart[] {
  // Only the first choice: neither front door has a notion of `n`.
  if (!isRecord(choice) || (choice.index ?? 0) !== 0) return [];
  const delta = isRecord(choice.delta) ? choice.delta : {};
  const parts: ChunkPart[] = [];
  const reasoning = str(delta.reasoning);
  if (reasoning) parts.push({ kind: 'reasoning', text: reasoning });
  const content = str(delta.content);
  if (content) parts.push({ kind: 'text', text: content });
  parts.push(...toolParts(delta.tool_calls));
  const reason = str(choice.finish_reason);
  if (reason !== undefined && reason !== 'error') parts.push({ kind: 'finish', reason });
  return parts;
}

/** Reads one chunk the chat service sent into the parts a front door translates. */
export function readChatChunk(chunk: unknown): ChunkPart[] {
  if (!isRecord(chunk)) return [];
  const parts: ChunkPart[] = [];
  // The error and usage objects come from this service's own serializer and usageWire, so
  // their shape is known; only their presence is checked.
  if (isRecord(chunk.error)) parts.push({ kind: 'error', error: chunk.error as ErrorBody['error'] });
  if (Array.isArray(chunk.choices)) for (const choice of chunk.choices) parts.push(...choiceParts(choice));
  if (isRecord(chunk.usage)) parts.push({ kind: 'usage', usage: chunk.usage as unknown as UsageWire });
  return parts;
}
