import type { BilledUsage } from '../../wire/chat-wire.js';
import { usageWire } from '../../wire/chat-wire.js';
import type { GatewayError } from '../../../platform/errors/index.js';
import type { ProducedText } from '../../wire/produced-text.js';
import type { JsonRecord } from '../../../providers/index.js';

/**
 * What one relayed vendor API (Anthropic's Messages, OpenAI's Responses) looks like on the
 * wire, as far as relaying needs: where the output limit goes, which events close the
 * stream, and where the catalog's model id and the charged cost go in.
 */
export interface RelayWire {
  /** The body field that carries the output limit (`max_tokens`, `max_output_tokens`). */
  readonly outputLimitField: string;
  /** The event a complete stream ends with, named when a stream stops short of it. */
  readonly endEvent: string;
  /** Headers of a relayed stream. */
  streamHeaders(requestId: string): Record<string, string>;
  /** The event (or answer) as the client sees it: the catalog id instead of the upstream's model. */
  withCatalogModel(data: JsonRecord, model: string): JsonRecord;
  /** The event that carries the final usage, with the charged cost and its lines added. */
  withCost(data: JsonRecord, billed: BilledUsage): JsonRecord;
  /** True when the upstream has ended its stream with this event (normally or with an error). */
  ends(type: string): boolean;
  /** The error event this API streams once a stream has started. */
  errorEvent(err: GatewayError): JsonRecord;
  /** What a non-streamed answer produced, to bill it by a count when it reports no usage. */
  produced(answer: JsonRecord): ProducedText;
}

/** An upstream `usage` object with the billed cost and its lines added, every other field unchanged. */
export function usageWithCost(usage: unknown, billed: BilledUsage): JsonRecord {
  const base = typeof usage === 'object' && usage !== null ? (usage as JsonRecord) : {};
  const { cost, cost_details: lines } = usageWire(billed);
  return { ...base, cost, cost_details: lines };
}
