import {
  anyVocabularyPieceBound,
  boundBudget,
  boundPiece,
  countPiece,
  dataUrlDimensions,
  imageTokenBound,
  promptTexts,
  sumPieces,
} from '../../billing/index.js';
import type { CatalogModel } from '../../catalog/index.js';
import { GatewayError } from '../../platform/errors/index.js';
import { andThen, type MaybePromise } from '../../platform/util/index.js';
import type { ChatRequestBody } from '../../providers/index.js';

/**
 * Tokens vendors add around what a client sends, each a bound over the vendors served (see
 * docs/money-and-holds.md, "How holds bound a request"): the reply priming and system wrappers of
 * a request, the role markers of a message, a tool's wrapper, the system prompt vendors add when tools are given
 * (Anthropic's tool-use prompt is up to 346 tokens), and the instructions around a JSON schema.
 */
export const PROMPT_OVERHEAD = { request: 16, message: 8, tool: 24, toolsPreamble: 600, schema: 64 } as const;

/**
 * Request fields that are not model input (sampling, limits, routing, streaming). Every other
 * field a client sends is passed on to OpenAI-compatible upstreams, which may bill it (legacy
 * `functions`, `prediction`, …), so its JSON text is counted as input.
 */
const NOT_INPUT: ReadonlySet<string> = new Set([
  'model', 'messages', 'tools', 'tool_choice', 'response_format', 'stream', 'stream_options', 'max_tokens',
  'max_completion_tokens', 'temperature', 'top_p', 'top_k', 'stop', 'seed', 'n', 'reasoning', 'include_reasoning',
  'reasoning_effort', 'user', 'logprobs', 'top_logprobs', 'presence_penalty', 'frequency_penalty', 'logit_bias',
  'parallel_tool_calls', 'service_tier', 'store', 'metadata', 'models', 'provider', 'max_cost', 'verbosity',
]);

/** Inputs of a request that its chat form does not show (the Messages relay's own blocks and tools). */
export interface HoldInputs {
  /** A field whose billed size cannot be known here (a document by URL or file id, a server tool's results). */
  readonly unboundedParam?: string;
  /** Texts a relayed request sends that its chat form does not carry (tool definitions chat has no form for, …). */
  readonly extraTexts?: readonly string[];
}

/** The texts and images of a request that upstreams bill as input, and the overheads around them. */
interface PromptParts {
  texts: string[];
  imageUrls: string[];
  overhead: number;
}

function promptParts(body: ChatRequestBody): PromptParts {
  const messages = promptTexts(body.messages);
  const texts = messages.texts;
  let overhead = PROMPT_OVERHEAD.request + body.messages.length * PROMPT_OVERHEAD.message;
  const tools = body.tools ?? [];
  if (tools.length > 0) overhead += PROMPT_OVERHEAD.toolsPreamble + tools.length * PROMPT_OVERHEAD.tool;
  for (const tool of tools) texts.push(JSON.stringify(tool.function));
  if (body.response_format !== undefined && body.response_format.type !== 'text') {
    overhead += PROMPT_OVERHEAD.schema;
    texts.push(JSON.stringify(body.response_format));
  }
  for (const [field, value] of Object.entries(body)) {
    if (!NOT_INPUT.has(field) && value !== undefined) texts.push(JSON.stringify({ [field]: value }));
  }
  return { texts, imageUrls: messages.imageUrls, overhead };
}

function imageTokens(urls: readonly string[]): number {
  return urls.reduce((sum, url) => sum + imageTokenBound(dataUrlDimensions(url)), 0);
}

/** The most input any request to the model can bill: its context window, when the catalog declares one. */
function withinContext(model: CatalogModel, tokens: number): number {
  const context = model.doc.context_length;
  return context === null ? tokens : Math.min(tokens, context);
}

/**
 * An upper bound of the input tokens a request can be billed, for its hold: every text the
 * upstream bills (messages, system, tools with their schemas, `response_format` schemas, any
 * other field passed on), each bounded for the model's tokenizer family, plus images by the
 * vendors' formulas and the overheads vendors add. No request's input exceeds the model's
 * context window, so that caps the bound; an input that cannot be sized here (`inputs`) is
 * held at the whole window, or refused when the catalog declares none. Linear in the
 * request's size, yielding to the event loop on long prompts (only then a promise).
 */
export function promptTokenBound(body: ChatRequestBody, model: CatalogModel, inputs: HoldInputs = {}): MaybePromise<number> {
  if (inputs.unboundedParam !== undefined) {
    if (model.doc.context_length !== null) return model.doc.context_length;
    throw new GatewayError('invalid_request', `${inputs.unboundedParam} cannot be sized before the call, and this model declares no context length to hold instead`, { param: inputs.unboundedParam });
  }
  const parts = promptParts(body);
  if (inputs.extraTexts !== undefined) parts.texts.push(...inputs.extraTexts);
  const budget = boundBudget();
  const perPiece = model.doc.tokenizer === 'o200k' ? (piece: string) => boundPiece(piece, budget) : anyVocabularyPieceBound;
  return andThen(sumPieces(parts.texts, perPiece), (text) => withinContext(model, parts.overhead + text + imageTokens(parts.imageUrls)));
}

/**
 * The input tokens of a request counted here, for billing when an upstream reports none: the
 * same texts, images and overheads the hold bounded, the texts counted exactly with o200k.
 */
export async function promptTokenCount(body: ChatRequestBody, model: CatalogModel): Promise<number> {
  const parts = promptParts(body);
  const text = await sumPieces(parts.texts, countPiece);
  return withinContext(model, parts.overhead + text + imageTokens(parts.imageUrls));
}
