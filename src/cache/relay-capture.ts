import type { EventSink, FrontPlan } from '../chat/index.js';
import { isRecord, type JsonRecord } from '../providers/index.js';
import type { RelayDoor } from './cache-entry.js';
import { MessageAssembler, messageEndedNormally } from './messages-assembler.js';
import { ResponseAssembler, responseEndedNormally } from './responses-assembler.js';

/** A plan that relays the door's own API to a provider speaking it. */
export type RelayPlan = Extract<FrontPlan, { kind: 'relay' }>;

/** Told once with a complete relayed answer, in its API's non-streamed form, after its charge is durable. */
export type RelayedAnswer = (answer: JsonRecord) => void;

/** Puts one relayed stream's answer back together from the events its client was sent. */
interface Assembler {
  add(event: unknown): void;
  result(): JsonRecord | undefined;
}

/** What capture needs to know of each relayed API. */
const APIS: Readonly<Record<RelayDoor, { endedNormally(answer: JsonRecord): boolean; assembler(): Assembler }>> = {
  messages: { endedNormally: messageEndedNormally, assembler: () => new MessageAssembler() },
  responses: { endedNormally: responseEndedNormally, assembler: () => new ResponseAssembler() },
};

/**
 * An event sink that passes everything on and, when the stream ends with its client still
 * there, tells the answer it carried. A client that left, and any stream the assembler could
 * not read as a normal, complete answer (a failure, a cut, the API's error event after a
 * charge that failed), tell nothing. A class because V8 keeps an object literal with a getter
 * in dictionary mode.
 */
class CapturingEvents implements EventSink {
  constructor(
    private readonly inner: EventSink,
    private readonly assembler: Assembler,
    private readonly onAnswer: RelayedAnswer,
  ) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  open(headers?: Readonly<Record<string, string>>): void {
    this.inner.open(headers);
  }

  send(data: unknown, name?: string): Promise<void> {
    if (!this.inner.closed) this.assembler.add(data);
    return this.inner.send(data, name);
  }

  async end(done: boolean): Promise<void> {
    const answer = this.inner.closed ? undefined : this.assembler.result();
    await this.inner.end(done);
    if (answer !== undefined) this.onAnswer(answer);
  }
}

/**
 * The relay plan with its complete answers told to `onAnswer`: a non-streamed answer as it is
 * returned (once charged, with its cost), a streamed one put back together from its events.
 */
export function capturingRelayPlan(plan: RelayPlan, door: RelayDoor, onAnswer: RelayedAnswer): RelayPlan {
  const api = APIS[door];
  return {
    ...plan,
    async complete(signal) {
      // The answer reports a durable charge: it exists only once the request settled.
      const answer = await plan.complete(signal);
      if (isRecord(answer) && api.endedNormally(answer)) onAnswer(answer);
      return answer;
    },
    stream: (events, signal) => plan.stream(new CapturingEvents(events, api.assembler(), onAnswer), signal),
  };
}
