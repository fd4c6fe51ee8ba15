import { ProducedText } from '../../wire/produced-text.js';
import { serializeError } from '../../../platform/errors/index.js';
import { isRecord, type JsonRecord } from '../../../providers/index.js';
import { usageWithCost, type RelayWire } from '../relay/relay-wire.js';
import { messagesStreamHeaders } from './messages-output.js';

/** What a relayed message produced: its thinking apart from everything else it says. */
function producedBy(message: JsonRecord): ProducedText {
  const produced = new ProducedText();
  const blocks = Array.isArray(message.content) ? (message.content as unknown[]) : [];
  for (const block of blocks) {
    const thinking = isRecord(block) && typeof block.thinking === 'string' ? block.thinking : undefined;
    if (thinking !== undefined) produced.addText(thinking, 'reasoning');
    else produced.addText(JSON.stringify(block));
  }
  return produced;
}

/**
 * Anthropic's Messages API on the wire: the model is named in `message_start`, the final
 * usage arrives in `message_delta`, the stream ends with `message_stop`.
 */
export const messagesWire: RelayWire = {
  outputLimitField: 'max_tokens',
  endEvent: 'message_stop',
  streamHeaders: messagesStreamHeaders,
  withCatalogModel(data, model) {
    if (data.type !== 'message_start' || !isRecord(data.message)) return data;
    return { ...data, message: { ...data.message, model } };
  },
  withCost: (data, billed) => ({ ...data, usage: usageWithCost(data.usage, billed) }),
  ends: (type) => type === 'message_stop' || type === 'error',
  errorEvent: (err) => ({ type: 'error', error: serializeError(err).error }),
  produced: producedBy,
};
