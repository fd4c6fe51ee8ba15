import type { BilledUnits, CostLineWire } from '../billing/index.js';
import { type CatalogModel, resolveModel } from '../catalog/index.js';
import {
  type ChatFront,
  type ChatServiceDeps,
  chatWorstCase,
  doorFront,
  holdLinesWire,
  largestAffordableMaxTokens,
} from '../chat/index.js';
import { GatewayError } from '../platform/errors/index.js';
import { imageWorstCase, parseEditRequest, parseGenerateRequest } from '../images/index.js';
import type { KeyDoc } from '../accounts/index.js';
import { ocrCostOfPages, ocrWorstCase } from '../ocr/index.js';
import type { QueuedServiceDeps } from '../queue/index.js';

/** What a quote needs: the chat and queued services' deps (no queue is used). */
export type QuoteDeps = ChatServiceDeps & Pick<QueuedServiceDeps, 'providers' | 'config' | 'admission' | 'catalog'>;

/** The worst case of one request, whatever its endpoint. */
export interface EndpointWorstCase {
  model: CatalogModel;
  estimate: bigint;
  units: BilledUnits;
  /** The hold's lines when they are not `units` at list prices (a chat hold). */
  lines?: CostLineWire[];
  /** The largest value of the request's size knob whose worst case fits `room`. */
  largest: (room: bigint) => Record<string, number>;
}

/** Endpoints a quote covers, as their paths below `/v1`. */
export const QUOTE_ENDPOINTS = ['chat/completions', 'responses', 'messages', 'images/generations', 'images/edits', 'ocr'] as const;
export type QuoteEndpoint = (typeof QUOTE_ENDPOINTS)[number];

/** The largest k in [0, max] with cost(k) ≤ room (cost is monotone). */
function largestFitting(max: number, room: bigint, cost: (k: number) => bigint): number {
  let low = 0;
  let high = max;
  if (cost(0) > room) return 0;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (cost(mid) <= room) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** A chat front door's request, bounded exactly as its admission bounds it (hold inputs included). */
async function chatFront(deps: QuoteDeps, key: KeyDoc, front: ChatFront): Promise<EndpointWorstCase> {
  const { worst } = await chatWorstCase(deps, key, front.chatBody, front.holdInputs?.bind(front));
  const choices = worst.body.n ?? 1;
  const { promptTokens, completionTokens, webSearches } = worst.hold;
  return {
    model: worst.model,
    estimate: worst.hold.estimate,
    units: { prompt: promptTokens, completion: completionTokens, ...(webSearches > 0 ? { web_search: webSearches } : {}) },
    lines: holdLinesWire(worst),
    largest: (room) => ({ max_tokens: largestAffordableMaxTokens(worst.model, worst.hold, choices, room) }),
  };
}

async function imagesFront(deps: QuoteDeps, key: KeyDoc, body: unknown, edit: boolean): Promise<EndpointWorstCase> {
  const { reference_images: refs, ...fields } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  const references = edit ? (typeof refs === 'number' && Number.isInteger(refs) && refs >= 1 && refs <= 16 ? refs : 1) : 0;
  const request = edit ? parseEditRequest(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]))) : parseGenerateRequest(body);
  const model = resolveModel(deps.catalog, request.model, 'image');
  if (edit && !model.doc.capabilities.includes('REFERENCES')) {
    throw new GatewayError('model_capability_missing', `Model '${model.id}' does not support image edits (REFERENCES).`, { param: 'model' });
  }
  const w = await imageWorstCase(deps, key, model, request.params, references);
  return { model: w.model, estimate: w.estimate, units: w.units, largest: (room) => ({ n: w.largestN(room) }) };
}

async function ocrFront(deps: QuoteDeps, key: KeyDoc, body: unknown): Promise<EndpointWorstCase> {
  const { model, pages } = await ocrWorstCase(deps, key, body);
  return { model, estimate: ocrCostOfPages(model, pages), units: { page: pages }, largest: (room) => ({ pages: largestFitting(pages, room, (p) => ocrCostOfPages(model, p)) }) };
}

/**
 * The worst case of a request to `endpoint`, through the very functions admission calls for
 * that endpoint (validation, model, access and estimate), so a quote equals the hold.
 */
export function endpointWorstCase(deps: QuoteDeps, key: KeyDoc, endpoint: QuoteEndpoint, body: unknown): Promise<EndpointWorstCase> {
  switch (endpoint) {
    case 'chat/completions':
    case 'responses':
    case 'messages':
      return chatFront(deps, key, doorFront(deps, endpoint, body));
    case 'images/generations':
      return imagesFront(deps, key, body, false);
    case 'images/edits':
      return imagesFront(deps, key, body, true);
    case 'ocr':
      return ocrFront(deps, key, body);
  }
}
