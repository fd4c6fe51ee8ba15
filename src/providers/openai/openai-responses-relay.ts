import { GatewayError } from '../../platform/errors/index.js';
import type { TokenUsage } from '../chat/chat-types.js';
import { arrayAt, isRecord, numberAt, recordAt, stringAt, type JsonRecord } from '../http/narrow.js';
import type { InputTokensCapability, RelayCall, RelayCapability, RelayedEvent, RelayedMessage } from '../relay/relay-types.js';
import { decodeSse, parseSseJson } from '../sse/sse-decoder.js';
import type { OpenAiChatOptions } from './openai-chat.js';

/** Events that close a response and carry its final `usage`. */
const FINAL_EVENTS: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** Delta events whose text is reasoning rather than visible output. */
const REASONING_DELTAS: ReadonlySet<string> = new Set(['response.reasoning_summary_text.delta', 'response.reasoning_text.delta']);

/**
 * Reads a response object's usage: cached input is inside `input_tokens`, reasoning inside
 * `output_tokens`, as OpenAI reports them; undefined when absent.
 */
export function readResponsesUsage(response: unknown): TokenUsage | undefined {
  const value = recordAt(response, 'usage');
  const promptTokens = numberAt(value, 'input_tokens');
  const completionTokens = numberAt(value, 'output_tokens');
  if (promptTokens === undefined || completionTokens === undefined) return undefined;
  const usage: TokenUsage = { promptTokens, completionTokens, reasoningTokens: numberAt(recordAt(value, 'output_tokens_details'), 'reasoning_tokens') ?? 0 };
  const cached = numberAt(recordAt(value, 'input_tokens_details'), 'cached_tokens');
  if (cached !== undefined && cached > 0) usage.cachedTokens = cached;
  // Each hosted web search is an output item of its own, billed per search.
  const searches = (arrayAt(response, 'output') ?? []).filter((item) => stringAt(item, 'type') === 'web_search_call').length;
  if (searches > 0) usage.webSearches = searches;
  return usage;
}

/** What an event adds to the answer (text, reasoning, tool input), to bill a stream cut short. */
function producedBy(event: JsonRecord, type: string): { produced: string; reasoning: boolean } {
  if (!type.endsWith('.delta')) return { produced: '', reasoning: false };
  return { produced: stringAt(event, 'delta') ?? '', reasoning: REASONING_DELTAS.has(type) };
}

function base(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, '');
}

/**
 * Relays Responses API calls as they are: the client's body goes up with only `model`
 * replaced, and the upstream's response or events come back untouched, with the token counts
 * read along the way for billing.
 */
export function createOpenAiResponsesRelay(options: OpenAiChatOptions): RelayCapability {
  const url = `${base(options.baseUrl)}/responses`;
  const bodyOf = (call: RelayCall): string => JSON.stringify({ ...call.body, model: call.upstreamModel });
  const headers = (stream: boolean): Record<string, string> => ({
    authorization: `Bearer ${options.apiKey}`,
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  });

  async function complete(call: RelayCall): Promise<RelayedMessage> {
    const response = await options.client.json({ url, headers: headers(false), body: bodyOf(call), signal: call.signal });
    if (!isRecord(response.body) || !Array.isArray(response.body.output)) {
      throw new GatewayError('upstream_error', 'The upstream provider answered without output');
    }
    return { message: response.body, usage: readResponsesUsage(response.body) };
  }

  async function* stream(call: RelayCall): AsyncGenerator<RelayedEvent> {
    const response = await options.client.request({ url, headers: headers(true), body: bodyOf(call), signal: call.signal });
    let usage: TokenUsage | undefined;
    for await (const sse of decodeSse(response.body)) {
      const data = parseSseJson(sse.data);
      const type = stringAt(data, 'type');
      if (!isRecord(data) || type === undefined) throw new GatewayError('upstream_error', 'The upstream provider sent an event without a type');
      const final = FINAL_EVENTS.has(type);
      if (final) usage = readResponsesUsage(data.response) ?? usage;
      yield { data, usage, final, ...producedBy(data, type) };
    }
  }

  return { complete, stream };
}

/** OpenAI's own count of a Responses request's input (`POST /responses/input_tokens`). */
export function createOpenAiInputTokens(options: OpenAiChatOptions): InputTokensCapability {
  const url = `${base(options.baseUrl)}/responses/input_tokens`;
  return {
    async count(call) {
      const { stream: _stream, max_output_tokens: _max, ...body } = call.body;
      const response = await options.client.json({
        url,
        headers: { authorization: `Bearer ${options.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...body, model: call.upstreamModel }),
        signal: call.signal,
      });
      const tokens = numberAt(response.body, 'input_tokens');
      if (tokens === undefined) throw new GatewayError('upstream_error', 'The upstream provider answered a token count without input_tokens');
      return tokens;
    },
  };
}
