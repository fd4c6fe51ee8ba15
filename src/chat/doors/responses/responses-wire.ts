import { ProducedText } from '../../wire/produced-text.js';
import { serializeError } from '../../../platform/errors/index.js';
import { isRecord, type JsonRecord } from '../../../providers/index.js';
import { usageWithCost, type RelayWire } from '../relay/relay-wire.js';

/** Events that close a response. */
const CLOSING: ReadonlySet<string> = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/** What a relayed response produced: reasoning summaries apart from everything else it output. */
function producedBy(response: JsonRecord): ProducedText {
  const produced = new ProducedText();
  const items = Array.isArray(response.output) ? (response.output as unknown[]) : [];
  for (const item of items) {
    if (isRecord(item) && item.type === 'reasoning') produced.addText(JSON.stringify(item.summary ?? ''), 'reasoning');
    else produced.addText(JSON.stringify(item));
  }
  return produced;
}

/**
 * OpenAI's Responses API on the wire: lifecycle events carry the whole `response` object
 * (with its model), the final usage arrives in `response.completed` (or `.incomplete`,
 * `.failed`), and errors mid-stream are an `error` event.
 */
export const responsesWire: RelayWire = {
  outputLimitField: 'max_output_tokens',
  endEvent: 'response.completed',
  streamHeaders: (requestId) => ({ 'x-request-id': requestId }),
  withCatalogModel(data, model) {
    if (!isRecord(data.response)) return data;
    return { ...data, response: { ...data.response, model } };
  },
  withCost(data, billed) {
    if (!isRecord(data.response)) return data;
    return { ...data, response: { ...data.response, usage: usageWithCost(data.response.usage, billed) } };
  },
  ends: (type) => CLOSING.has(type),
  errorEvent(err) {
    const { message, code, param } = serializeError(err).error;
    return { type: 'error', code, message, param };
  },
  produced: producedBy,
};
