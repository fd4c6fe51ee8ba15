import { chatWorstCase } from '../../admit/chat-worst-case.js';
import type { ChatServiceDeps } from '../../chat-service-deps.js';
import type { KeyDoc } from '../../../accounts/index.js';
import { isRecord, type JsonRecord } from '../../../providers/index.js';
import { doorFront, type DoorHeaders } from '../door-table.js';

/** The doors that count input tokens: Anthropic's `count_tokens`, OpenAI's `input_tokens`. */
export type CountingDoor = 'messages' | 'responses';

/** Where a count comes from: the model's own tokenizer here, the upstream's count, or the hold's bound. */
export type CountSource = 'exact' | 'upstream' | 'bound';

/** A request's input tokens and how they were counted. */
export interface InputTokenCount {
  readonly tokens: number;
  readonly source: CountSource;
}

/** A counting body as its door's request: counts carry no output limit, and never stream. */
function asRequest(door: CountingDoor, body: unknown): JsonRecord {
  const fields = isRecord(body) ? body : {};
  return door === 'messages' ? { max_tokens: 1, ...fields, stream: false } : { ...fields, stream: false };
}

/**
 * Counts the input a request would bill, without calling the model or charging: through the
 * door's own mapping and admission's checks (validation, model, allowlist, routes), then on
 * the first route: exactly where the adapter counts its own usage (local models), with the
 * upstream's counting endpoint where the route's provider speaks the door's API, else the
 * hold's bound on the input, marked as a bound.
 */
export async function countInputTokens(deps: ChatServiceDeps, key: KeyDoc, door: CountingDoor, body: unknown, headers: DoorHeaders = {}): Promise<InputTokenCount> {
  const request = asRequest(door, body);
  const front = doorFront(deps, door, request, headers);
  const { routes } = await chatWorstCase(deps, key, front.chatBody, front.holdInputs?.bind(front));
  const [route] = routes;
  if (route === undefined) return { tokens: 0, source: 'bound' };
  if (route.chat.countInput !== undefined) return { tokens: await route.chat.countInput(route.body), source: 'exact' };
  const upstream = deps.providers.get(route.providerId).inputTokens?.[door];
  if (upstream !== undefined) {
    // Bounded by the upstream client's own connect and first-byte timeouts.
    const call = { upstreamModel: route.model.doc.upstream_model, body: request, signal: new AbortController().signal, ...(headers.beta !== undefined ? { beta: headers.beta } : {}) };
    return { tokens: await upstream.count(call), source: 'upstream' };
  }
  return { tokens: route.hold.promptTokens, source: 'bound' };
}
