/**
 * The gateway's chat wire types: the OpenAI chat-completions format, which is also what
 * every adapter takes and returns. Vendor wire types stay inside each provider folder.
 */

/** A chat request as validated at the edge (OpenAI format; unknown fields preserved). */
export interface ChatRequestBody {
  model: string;
  messages: ChatMessage[];
  stream?: boolean;
  tools?: ChatTool[];
  tool_choice?: unknown;
  response_format?: { type: 'text' } | { type: 'json_object' } | { type: 'json_schema'; json_schema: Record<string, unknown> };
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  top_p?: number;
  stop?: string | string[];
  seed?: number;
  n?: number;
  reasoning?: ReasoningOptions;
  include_reasoning?: boolean;
  /** OpenAI's effort input (what the AI SDK sends); `none` turns reasoning off. */
  reasoning_effort?: unknown;
  [extra: string]: unknown;
}

/** OpenRouter-style reasoning options. */
export interface ReasoningOptions {
  effort?: 'minimal' | 'low' | 'medium' | 'high';
  max_tokens?: number;
  exclude?: boolean;
  enabled?: boolean;
}

/** One message of the conversation. */
export interface ChatMessage {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  content?: string | ContentPart[] | null;
  name?: string;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  reasoning?: string;
  [extra: string]: unknown;
}

/** A content part of a user message. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: 'auto' | 'low' | 'high' } };

/** A function tool definition. */
export interface ChatTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean };
}

/** A tool call made by the assistant. */
export interface ToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Usage normalized from any vendor's report (or counted locally). Every vendor's shape maps
 * to it: input counts include cache reads and writes (Anthropic reports them apart), output
 * counts include reasoning (xAI and Gemini report it apart).
 */
export interface TokenUsage {
  /** Every input token billed: plain, cache reads and cache writes. */
  promptTokens: number;
  /** Every output token: visible and reasoning. */
  completionTokens: number;
  /** Reasoning tokens, part of `completionTokens`. */
  reasoningTokens: number;
  /** Input read from the prompt cache, part of `promptTokens`. */
  cachedTokens?: number;
  /** Input written to the prompt cache (5-minute lifetime), part of `promptTokens`. */
  cacheWriteTokens?: number;
  /** Input written to the prompt cache with a 1-hour lifetime, part of `promptTokens`. */
  cacheWrite1hTokens?: number;
  /** Server-side web searches the upstream ran. */
  webSearches?: number;
}

/** One choice of a non-streamed completion. */
export interface ChatChoice {
  index: number;
  message: {
    role: 'assistant';
    content: string | null;
    reasoning?: string;
    tool_calls?: ToolCall[];
    refusal?: string | null;
    /** Upstream annotations (e.g. URL citations), relayed as sent. */
    annotations?: unknown[];
  };
  finish_reason: string | null;
  /** Upstream token log probabilities, relayed as sent. */
  logprobs?: unknown;
}

/** What an adapter returns for a non-streamed call (the gateway adds `model`, ids and cost). */
export interface ChatResult {
  choices: ChatChoice[];
  /** The upstream's usage; absent when it reported none (the gateway then counts). */
  usage?: TokenUsage;
  /** Upstream fields worth passing on (e.g. `system_fingerprint`). */
  extra?: Record<string, unknown>;
}

/** A streamed delta of one choice. */
export interface ChatDelta {
  index: number;
  delta: {
    role?: 'assistant';
    content?: string | null;
    reasoning?: string;
    tool_calls?: Array<{ index: number; id?: string; type?: 'function'; function?: { name?: string; arguments?: string } }>;
    refusal?: string | null;
    annotations?: unknown[];
  };
  finish_reason: string | null;
  /** Upstream token log probabilities of this delta, relayed as sent. */
  logprobs?: unknown;
}

/**
 * Items of an adapter's stream: deltas and the upstream's usage as it reports it. A `partial`
 * usage item (e.g. Anthropic's input count at the start) may be followed by a final one; an
 * upstream that reports none yields no usage item (the gateway then counts). A `skipped` item
 * says one event could not be read and was left out while the stream went on (the gateway
 * logs it as a warning; nothing reaches the client).
 */
export type ChatStreamEvent =
  | { kind: 'delta'; choices: ChatDelta[] }
  | { kind: 'usage'; usage: TokenUsage; partial?: boolean }
  | { kind: 'skipped'; reason: string };

/** Input of a chat call. */
export interface ChatCall {
  /** The provider's own model name (catalog private field). */
  upstreamModel: string;
  body: ChatRequestBody;
  signal: AbortSignal;
}

/** The chat capability of a provider. */
export interface ChatCapability {
  /** The request field this upstream honours as the output limit (default `max_tokens`). */
  outputLimitField?: 'max_tokens' | 'max_completion_tokens';
  /**
   * Output tokens the upstream may produce for this body when the adapter sends it a larger limit
   * than the client asked for (e.g. a thinking budget on top of the answer), so the hold covers it.
   */
  outputLimit?(body: ChatRequestBody): number;
  /** The input tokens this body bills, counted exactly, for adapters that count their own usage. */
  countInput?(body: ChatRequestBody): Promise<number>;
  complete(call: ChatCall): Promise<ChatResult>;
  /** Lazily starts the upstream call; throws GatewayError before the first item on failure. */
  stream(call: ChatCall): AsyncIterable<ChatStreamEvent>;
}
