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
 * neither the Responses nor the Messages API sends. A class because V8 keeps an object
 * literal with a getter in dictionary mode.
 */
class TranslatingSink implements ChunkSink {
  /** The opening events are queued first, so later sends never overtake them. */
  private opened: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: EventSink,
    private readonly translator: StreamTranslator,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  get closed(): boolean {
    return this.events.closed;
  }

  open(): void {
    this.events.open(this.headers);
    this.opened = this.sendAll(this.translator.start());
  }

  async send(chunk: unknown): Promise<void> {
    await this.opened;
    for (const part of readChatChunk(chunk)) await this.sendAll(this.translator.part(part));
  }

  async finish(): Promise<void> {
    await this.opened;
    await this.sendAll(this.translator.end());
    await this.events.end(false);
  }

  private async sendAll(list: NamedEvent[]): Promise<void> {
    for (const event of list) await this.events.send(event, event.type);
  }
}

/** A sink that translates chat chunks into `translator`'s named events (see {@link TranslatingSink}). */
export function translatingSink(events: EventSink, translator: StreamTranslator, headers: Readonly<Record<string, string>>): ChunkSink {
  return new TranslatingSink(events, translator, headers);
}
