import { GatewayError } from '../../platform/errors/index.js';
import type { ChatDelta, ChatStreamEvent } from '../chat/chat-types.js';
import { sanitizeUpstreamMessage } from '../http/upstream-errors.js';
import { isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import { type SseEvent, SKIPPED_EVENT, TolerantSseJson } from '../sse/sse-decoder.js';
import { finishReason, readAnthropicUsage, toTokenUsage, type AnthropicTokenCounts } from './anthropic-response.js';

type Delta = ChatDelta['delta'];

/** Anthropic error types that are worth a retry by the client as a rate limit. */
const RATE_LIMIT_ERRORS: ReadonlySet<string> = new Set(['rate_limit_error']);

/** Maps an `error` event (`{type: 'error', error: {type, message}}`) to a GatewayError. */
export function anthropicStreamError(payload: unknown): GatewayError {
  const error = recordAt(payload, 'error');
  const type = stringAt(error, 'type') ?? 'api_error';
  const message = sanitizeUpstreamMessage(stringAt(error, 'message') ?? type);
  if (RATE_LIMIT_ERRORS.has(type)) {
    return new GatewayError('rate_limited', `The upstream provider is rate limiting: ${message}`, { retryAfterSeconds: 1 });
  }
  return new GatewayError('upstream_error', `The upstream provider failed mid-stream (${type}): ${message}`);
}

/** Running state of one streamed message. */
class StreamState {
  counts: AnthropicTokenCounts = {};
  thinking = '';
  stopped = false;
  /** Content block index → OpenAI tool call index. */
  private readonly toolIndexes = new Map<number, number>();
  /** Blocks of tools the upstream runs itself (web search, MCP): their input is not the client's to call. */
  readonly serverToolBlocks = new Set<number>();

  toolIndex(block: number, create: boolean): number | undefined {
    if (create && !this.toolIndexes.has(block)) this.toolIndexes.set(block, this.toolIndexes.size);
    return this.toolIndexes.get(block);
  }

  addCounts(usage: unknown): void {
    this.counts = { ...this.counts, ...readAnthropicUsage(usage) };
  }
}

function blockStart(event: JsonRecord, state: StreamState): Delta | undefined {
  const block = recordAt(event, 'content_block');
  const type = stringAt(block, 'type');
  if (type === 'tool_use') {
    const index = state.toolIndex(numberAt(event, 'index') ?? 0, true) ?? 0;
    const call = { index, id: stringAt(block, 'id') ?? '', type: 'function' as const, function: { name: stringAt(block, 'name') ?? '', arguments: '' } };
    return { tool_calls: [call] };
  }
  if (type === 'server_tool_use' || type === 'mcp_tool_use') state.serverToolBlocks.add(numberAt(event, 'index') ?? 0);
  const text = type === 'text' ? stringAt(block, 'text') : undefined;
  return text === undefined || text === '' ? undefined : { content: text };
}

function blockDelta(event: JsonRecord, state: StreamState): Delta | undefined {
  const delta = recordAt(event, 'delta');
  switch (stringAt(delta, 'type')) {
    case 'text_delta':
      return { content: stringAt(delta, 'text') ?? '' };
    case 'thinking_delta': {
      const thinking = stringAt(delta, 'thinking') ?? '';
      state.thinking += thinking;
      return { reasoning: thinking };
    }
    case 'input_json_delta': {
      const block = numberAt(event, 'index') ?? 0;
      if (state.serverToolBlocks.has(block)) return undefined;
      const index = state.toolIndex(block, false);
      if (index === undefined) throw new GatewayError('upstream_error', 'The upstream provider sent tool input for an unknown block');
      return { tool_calls: [{ index, function: { arguments: stringAt(delta, 'partial_json') ?? '' } }] };
    }
    default:
      // signature_delta, citations_delta and future delta types carry nothing for the client.
      return undefined;
  }
}

function delta(delta: Delta, finish: string | null = null): ChatStreamEvent {
  return { kind: 'delta', choices: [{ index: 0, delta, finish_reason: finish }] };
}

/** Maps one event; returns the item to emit, if any. */
function mapEvent(event: JsonRecord, state: StreamState): ChatStreamEvent | undefined {
  switch (stringAt(event, 'type')) {
    case 'message_start':
      state.addCounts(recordAt(event, 'message')?.usage);
      return delta({ role: 'assistant', content: '' });
    case 'content_block_start': {
      const out = blockStart(event, state);
      return out === undefined ? undefined : delta(out);
    }
    case 'content_block_delta': {
      const out = blockDelta(event, state);
      return out === undefined ? undefined : delta(out);
    }
    case 'message_delta': {
      state.addCounts(event.usage);
      const reason = finishReason(stringAt(recordAt(event, 'delta'), 'stop_reason'));
      return reason === null ? undefined : delta({}, reason);
    }
    case 'message_stop': {
      state.stopped = true;
      const usage = toTokenUsage(state.counts, state.thinking);
      return usage === undefined ? undefined : { kind: 'usage', usage };
    }
    case 'error':
      throw anthropicStreamError(event);
    default:
      // ping, content_block_stop and event types added later are ignored, as Anthropic advises.
      return undefined;
  }
}

/**
 * Maps Messages API stream events to gateway stream items: role, text, thinking
 * (`delta.reasoning`) and tool-call deltas, a finish delta from `message_delta`, and the usage
 * item on `message_stop`. An `error` event or a stream without `message_stop` raises; an
 * event that is not JSON is skipped (a `skipped` item), up to a few per stream.
 */
export async function* mapAnthropicStream(events: AsyncIterable<SseEvent>): AsyncGenerator<ChatStreamEvent> {
  const state = new StreamState();
  const payloads = new TolerantSseJson();
  try {
    for await (const event of events) {
      // Events after message_stop are drained so the connection ends cleanly.
      if (state.stopped) continue;
      const payload = payloads.parse(event.data);
      if (payload === SKIPPED_EVENT) {
        yield { kind: 'skipped', reason: 'an event did not carry valid JSON' };
        continue;
      }
      if (!isRecord(payload)) throw new GatewayError('upstream_error', 'The upstream provider sent a malformed event');
      const item = mapEvent(payload, state);
      if (item !== undefined) yield item;
      // The input count arrives first: passed on at once, a stream cut short still bills it.
      const early = stringAt(payload, 'type') === 'message_start' ? toTokenUsage(state.counts, '') : undefined;
      if (early !== undefined) yield { kind: 'usage', usage: early, partial: true };
    }
  } catch (err) {
    if (state.stopped) return;
    throw err;
  }
  if (!state.stopped) throw new GatewayError('upstream_error', 'The upstream stream ended before completing');
}
