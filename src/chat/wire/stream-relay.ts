import type { Logger } from 'pino';
import { type GatewayError, toGatewayError } from '../../platform/errors/index.js';
import { type ChatDelta, type ChatRequestBody, type ChatStreamEvent, readReasoning, streamEventWithoutReasoning, type TokenUsage } from '../../providers/index.js';
import type { ChunkSink } from './chunk-sink.js';
import { chunkWire, type CompletionMeta } from './chat-wire.js';
import type { ProducedText } from './produced-text.js';

/** How the relay of one upstream stream ended. */
export interface RelayEnd {
  usage: TokenUsage | undefined;
  /** The upstream's final usage arrived (not only partial counts). */
  final: boolean;
  failure: GatewayError | undefined;
}

/** Who else sees a stream's deltas on their way to the client. */
export interface RelayWatch {
  /** Reshapes an upstream's deltas before anything else sees them (a continued answer's second part). */
  readonly reshape?: (choices: ChatDelta[]) => ChatDelta[];
  /** Told of every delta the client is sent (or would be, once it left). */
  readonly seen?: (choices: readonly ChatDelta[]) => void;
  /** Told of an upstream event the adapter could not read and left out. */
  readonly skipped?: (reason: string) => void;
}

/** Logs an upstream event the adapter left out (the answer went on without it). */
export function skippedEvents(log: Pick<Logger, 'warn'>, requestId: string, route: string): (reason: string) => void {
  return (reason) => log.warn({ request_id: requestId, route, reason }, 'skipped an upstream event it could not read');
}

/** One upstream stream to relay: its first item (already read), the rest, and the body it answers. */
export interface RelaySource {
  readonly first: IteratorResult<ChatStreamEvent>;
  readonly iterator: AsyncIterator<ChatStreamEvent>;
  readonly body: ChatRequestBody;
}

/**
 * Relays upstream items to the client as chunks of `meta`'s completion. Once the client has
 * gone the upstream is still read, without sending, until its final usage arrives (OpenAI
 * reports usage only after the last choice) or the upstream signal ends the call after the
 * usage grace.
 */
export async function relayStream(meta: CompletionMeta, source: RelaySource, sink: ChunkSink, produced: ProducedText, watch: RelayWatch = {}): Promise<RelayEnd> {
  const exclude = readReasoning(source.body).exclude;
  const { iterator } = source;
  const end: RelayEnd = { usage: undefined, final: false, failure: undefined };
  try {
    for (let step = source.first; !step.done; step = await iterator.next()) {
      const event = step.value;
      if (event.kind === 'usage') {
        end.usage = event.usage;
        end.final = event.partial !== true;
        if (end.final && sink.closed) break;
        continue;
      }
      if (event.kind === 'skipped') {
        watch.skipped?.(event.reason);
        continue;
      }
      const reshaped = watch.reshape === undefined ? event : { kind: 'delta' as const, choices: watch.reshape(event.choices) };
      if (watch.reshape !== undefined && reshaped.choices.length === 0) continue;
      produced.add(reshaped.choices);
      watch.seen?.(reshaped.choices);
      if (sink.closed) continue;
      const shown = exclude ? streamEventWithoutReasoning(reshaped) : reshaped;
      if (shown?.kind === 'delta') await sink.send(chunkWire(meta, shown.choices));
    }
  } catch (err) {
    // After a client disconnect the upstream was ended on purpose: not a failure to report.
    if (!sink.closed) end.failure = toGatewayError(err);
  } finally {
    // Stops the upstream when the relay ends early; a no-op after normal end.
    await iterator.return?.().catch(() => undefined);
  }
  return end;
}
