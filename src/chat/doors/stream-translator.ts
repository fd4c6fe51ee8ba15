import type { ChunkSink } from '../wire/chunk-sink.js';
import type { EventSink } from '../wire/client-channel.js';
import { readChatChunk, type ChunkPart } from './chat-chunk-reader.js';

/** One named event of a front door's stream (its `type` is also the event name). */
export interface NamedEvent {
  type: string;
  [field: string]: unknown;
}

/** Turns chat stream parts into a front door's events; stateful per stream. */
export interface StreamTranslator {
  /** Events that open the stream (sent with the headers). */
  start(): NamedEvent[];
  /** Events for one part of a chat chunk. */
  part(part: ChunkPart): NamedEvent[];
  /** Events that close the stream. */
  end(): NamedEvent[];
}

/**
 * A chat {@link ChunkSink} that speaks another wire format: each chat chunk is read back
 * into parts and translated into named events. The stream ends without `[DONE]`, which
 * neither the Responses nor the Messages API sends.
 */
export function translatingSink(events: EventSink, translator: StreamTranslator, headers: Readonly<Record<string, string>>): ChunkSink {
  // The opening events are queued first, so later sends never overtake them.
  let opened: Promise<void> = Promise.resolve();
  const sendAll = async (list: NamedEvent[]): Promise<void> => {
    for (const event of list) await events.send(event, event.type);
  };
  return {
    get closed() {
      return events.closed;
    },
    open() {
      events.open(headers);
      opened = sendAll(translator.start());
    },
    async send(chunk) {
      await opened;
      for (const part of readChatChunk(chunk)) await sendAll(translator.part(part));
    },
    async finish() {
      await opened;
      await sendAll(translator.end());
      await events.end(false);
    },
  };
}
