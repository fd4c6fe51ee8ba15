import type { ChunkSink } from '../chat/chat-stream.js';
import type { GatewayContext } from '../http/state.js';
import { commitStream, SseWriter } from '../http/sse/sse-writer.js';
import { readChatChunk, type ChunkPart } from './chat-chunk-reader.js';

/** One named server-sent event of a front door's stream. */
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

/** Frames an event the way OpenAI's and Anthropic's streams do: an `event:` line, then data. */
export function namedFrame(event: NamedEvent): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * A chat {@link ChunkSink} that speaks another wire format: each chat chunk is read back
 * into parts and translated into named events. The stream ends without `[DONE]`, which
 * neither the Responses nor the Messages API sends.
 */
export function translatingSink(ctx: GatewayContext, translator: StreamTranslator): ChunkSink {
  const writer = new SseWriter(ctx.res);
  // The opening events are queued first, so later sends never overtake them.
  let opened: Promise<void> = Promise.resolve();
  const sendAll = async (events: NamedEvent[]): Promise<void> => {
    for (const event of events) await writer.write(namedFrame(event));
  };
  return {
    get closed() {
      return writer.closed;
    },
    open() {
      commitStream(ctx, writer, { 'x-request-id': ctx.state.requestId });
      opened = sendAll(translator.start());
    },
    async send(chunk) {
      await opened;
      for (const part of readChatChunk(chunk)) await sendAll(translator.part(part));
    },
    async finish() {
      await opened;
      await sendAll(translator.end());
      await writer.end();
    },
  };
}
