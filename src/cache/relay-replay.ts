import { type Nano, toUsdNumber } from '../billing/index.js';
import type { EventSink } from '../chat/index.js';
import { isRecord, type JsonRecord } from '../providers/index.js';
import type { RelayDoor, RelayEntry } from './cache-entry.js';
import { hitLine } from './hit-price.js';
import { messageEvents } from './messages-events.js';
import type { RelayPlan } from './relay-capture.js';
import { responseEvents } from './responses-events.js';

/** Each relayed API's stream of a whole answer. */
const EVENTS: Readonly<Record<RelayDoor, (answer: JsonRecord) => JsonRecord[]>> = { messages: messageEvents, responses: responseEvents };

/**
 * The stored answer as a hit shows it: the catalog id that answered, the original token
 * counts, and the hit's own cost and line in place of the original's. Its ids stay the
 * provider's, as the relayed answer had them (a Responses id may name the response the
 * provider keeps, which `previous_response_id` can point at).
 */
export function hitAnswer(entry: RelayEntry, cost: Nano): JsonRecord {
  const usage = isRecord(entry.answer.usage) ? entry.answer.usage : {};
  return { ...entry.answer, model: entry.model, usage: { ...usage, cost: toUsdNumber(cost), cost_details: [hitLine(cost)] } };
}

/**
 * Says a relayed answer again in its API's own form: the object itself, or its stream of
 * events under the relay's stream headers (the cost where the relay reports it: Messages in
 * message_delta's usage, Responses in response.completed). Undefined once streamed.
 */
export async function replayRelayed(plan: RelayPlan, door: RelayDoor, answer: JsonRecord, events: EventSink | undefined): Promise<unknown> {
  if (events === undefined) return answer;
  events.open(plan.streamHeaders);
  for (const event of EVENTS[door](answer)) {
    if (events.closed) return undefined;
    await events.send(event, String(event.type));
  }
  await events.end(false);
  return undefined;
}
