import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

/** A `cost_details` line as the gateway shows it. */
export interface WireLine {
  component: string;
  units: number;
  unit_price_usd: string;
  amount_usd: string;
}

/** What one front door showed for one request, in a shape common to the three doors. */
export interface Observed {
  requestId: string;
  /** `usage.cost`, USD as sent. */
  cost: number;
  lines: WireLine[];
  cached: number;
  cacheWrites: number;
  /** Reasoning tokens shown (the Messages shape has none). */
  reasoning: number | undefined;
  webSearches: number;
}

/** The front doors a recording goes through. */
export type Door = 'chat' | 'responses' | 'messages';

type Json = Record<string, any>;
const PROMPT = 'Answer as recorded.';
/** Output limit sent through the Messages door: its hold covers every recorded answer. */
const MESSAGES_MAX_TOKENS = 20_000;

function requestIdOf(response: Response): string {
  const id = response.headers.get('x-service-request-id');
  if (id === null) throw new Error('no request id header');
  return id;
}

function fromChatUsage(requestId: string, usage: Json | undefined | null): Observed {
  if (usage === undefined || usage === null) throw new Error('no usage');
  return {
    requestId, cost: usage.cost, lines: usage.cost_details,
    cached: usage.prompt_tokens_details?.cached_tokens ?? 0,
    cacheWrites: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
    reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
    webSearches: usage.server_tool_use?.web_search_requests ?? 0,
  };
}

function fromResponsesUsage(requestId: string, usage: Json | undefined | null): Observed {
  if (usage === undefined || usage === null) throw new Error('no usage');
  return {
    requestId, cost: usage.cost, lines: usage.cost_details,
    cached: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWrites: usage.input_tokens_details?.cache_write_tokens ?? 0,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
    webSearches: usage.server_tool_use?.web_search_requests ?? 0,
  };
}

function fromMessagesUsage(requestId: string, usage: Json | undefined | null): Observed {
  if (usage === undefined || usage === null) throw new Error('no usage');
  return {
    requestId, cost: usage.cost, lines: usage.cost_details,
    cached: usage.cache_read_input_tokens ?? 0,
    cacheWrites: usage.cache_creation_input_tokens ?? 0,
    reasoning: undefined,
    webSearches: usage.server_tool_use?.web_search_requests ?? 0,
  };
}

async function viaChat(openai: OpenAI, model: string, stream: boolean): Promise<Observed> {
  const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: PROMPT }];
  if (!stream) {
    const { data, response } = await openai.chat.completions.create({ model, messages }).withResponse();
    return fromChatUsage(requestIdOf(response), data.usage as Json | undefined);
  }
  const { data, response } = await openai.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } }).withResponse();
  let usage: Json | undefined;
  for await (const chunk of data) if (chunk.usage) usage = chunk.usage as Json;
  return fromChatUsage(requestIdOf(response), usage);
}

async function viaResponses(openai: OpenAI, model: string, stream: boolean): Promise<Observed> {
  if (!stream) {
    const { data, response } = await openai.responses.create({ model, input: PROMPT }).withResponse();
    return fromResponsesUsage(requestIdOf(response), data.usage as Json | undefined);
  }
  const { data, response } = await openai.responses.create({ model, input: PROMPT, stream: true }).withResponse();
  let usage: Json | undefined;
  for await (const event of data) if (event.type === 'response.completed') usage = event.response.usage as Json | undefined;
  return fromResponsesUsage(requestIdOf(response), usage);
}

async function viaMessages(anthropic: Anthropic, model: string, stream: boolean): Promise<Observed> {
  const params = { model, max_tokens: MESSAGES_MAX_TOKENS, messages: [{ role: 'user' as const, content: PROMPT }] };
  if (!stream) {
    const { data, response } = await anthropic.messages.create(params).withResponse();
    return fromMessagesUsage(requestIdOf(response), data.usage as unknown as Json);
  }
  const { data, response } = await anthropic.messages.create({ ...params, stream: true }).withResponse();
  let usage: Json = {};
  for await (const event of data) {
    // The final counts restate the first ones field by field (Anthropic's stream usage).
    if (event.type === 'message_start') usage = { ...usage, ...(event.message.usage as unknown as Json) };
    if (event.type === 'message_delta') usage = { ...usage, ...(event.usage as unknown as Json) };
  }
  return fromMessagesUsage(requestIdOf(response), usage);
}

/** Sends one request through a front door with the official client, as the recording's kind (JSON or stream). */
export function callDoor(door: Door, clients: { openai: OpenAI; anthropic: Anthropic }, model: string, stream: boolean): Promise<Observed> {
  if (door === 'chat') return viaChat(clients.openai, model, stream);
  if (door === 'responses') return viaResponses(clients.openai, model, stream);
  return viaMessages(clients.anthropic, model, stream);
}
