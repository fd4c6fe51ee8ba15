import type { AdmittedRoute } from '../admit/chat-admit.js';
import { estimateChatCost } from '../admit/chat-estimate.js';
import { promptTokenCount } from '../admit/prompt-bound.js';
import { type Prefill, prefillBody } from './prefill.js';

/**
 * A route as it continues a partial answer: its body with the prefill (see prefillBody), and
 * its own worst case for that body, whose input counts the prefill as the vendor bills it.
 */
export async function continuationRoute(route: AdmittedRoute, prefill: Prefill, producedTokens: number): Promise<AdmittedRoute> {
  const body = prefillBody(route.body, prefill, producedTokens);
  // The searches the first leg was allowed stay allowed (and held) on the continuation.
  const hold = await estimateChatCost(body, route.model, route.chat.outputLimit?.(body), { webSearches: route.hold.webSearches });
  let counted: Promise<number> | undefined;
  return { ...route, body, hold, promptTokens: () => (counted ??= promptTokenCount(body, route.model)) };
}
