import { classifyError, type GatewayError, toGatewayError } from '../platform/errors/index.js';
import { type ChatStreamEvent, readReasoning, streamEventWithoutReasoning, type TokenUsage } from '../providers/index.js';
import type { AdmittedChat } from './admit/chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { ChatSettlement, type Settled } from './settle/chat-settlement.js';
import type { ChunkSink } from './wire/chunk-sink.js';
import { chunkWire, errorChunkWire, usageChunkWire, usageWire } from './wire/chat-wire.js';
import { ProducedText } from './wire/produced-text.js';
import { openUpstreamStream } from './routes/upstream-call.js';

type Iter = AsyncIterator<ChatStreamEvent>;

/** How the relay loop ended. */
interface RelayEnd {
  usage: TokenUsage | undefined;
  /** The upstream's final usage arrived (not only partial counts). */
  final: boolean;
  failure: GatewayError | undefined;
}

/**
 * Relays upstream items to the client. Once the client has gone the upstream is still read,
 * without sending, until its final usage arrives (OpenAI reports usage only after the last
 * choice) or the upstream signal ends the call after the usage grace.
 */
async function relay(admitted: AdmittedChat, first: IteratorResult<ChatStreamEvent>, iterator: Iter, sink: ChunkSink, produced: ProducedText): Promise<RelayEnd> {
  const exclude = readReasoning(admitted.body).exclude;
  const end: RelayEnd = { usage: undefined, final: false, failure: undefined };
  try {
    for (let step = first; !step.done; step = await iterator.next()) {
      const event = step.value;
      if (event.kind === 'usage') {
        end.usage = event.usage;
        end.final = event.partial !== true;
        if (end.final && sink.closed) break;
        continue;
      }
      produced.add(event.choices);
      if (sink.closed) continue;
      const shown = exclude ? streamEventWithoutReasoning(event) : event;
      if (shown?.kind === 'delta') await sink.send(chunkWire(admitted.meta, shown.choices));
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

async function closeStream(deps: ChatServiceDeps, admitted: AdmittedChat, sink: ChunkSink, end: RelayEnd, settled: Promise<Settled>): Promise<void> {
  if (end.failure !== undefined) {
    deps.requests?.draft(admitted.requestId)?.failed(end.failure.code);
    if (!sink.closed) await sink.send(errorChunkWire(admitted.meta, end.failure));
  }
  let result: Settled;
  try {
    result = await settled;
  } catch (err) {
    const failure = classifyError(err);
    deps.log.error({ err, request_id: admitted.requestId }, 'stream charge failed');
    // The cost is not durable, so it is not reported; the client still gets a clean end.
    if (!sink.closed) await sink.send(errorChunkWire(admitted.meta, failure));
    await sink.finish();
    return;
  }
  if (sink.closed) return;
  await sink.send(usageChunkWire(admitted.meta, usageWire(result)));
  await sink.finish();
}

/**
 * Streams a completion. The first upstream item is awaited before anything is written, so
 * failures up to then become a normal JSON error (and nothing is charged). After that the
 * stream always ends with a usage chunk and `[DONE]`: an upstream failure becomes an error
 * chunk first; a client disconnect aborts the upstream. Either way what was produced is
 * billed (upstream usage if it arrived, else a token count) exactly once, durably, before
 * the usage chunk that reports it.
 */
export async function streamChat(deps: ChatServiceDeps, admitted: AdmittedChat, sink: ChunkSink, signal: AbortSignal): Promise<void> {
  const settlement = new ChatSettlement(deps, admitted);
  const upstream = admitted.chat.stream({ upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal });
  const opened = await openUpstreamStream(deps, admitted, settlement, upstream, () => sink.closed);
  if (opened === undefined) return;
  const { first, iterator } = opened;
  deps.metrics?.streamOpened();
  const produced = new ProducedText();
  try {
    sink.open();
    const end = await relay(admitted, first, iterator, sink, produced);
    await closeStream(deps, admitted, sink, end, settlement.settle({ usage: end.usage, complete: end.final, produced }));
  } catch (err) {
    // Something unexpected after admission: still bill what was produced, once, so the
    // hold and the stream slot are freed.
    await settlement.settle({ usage: undefined, complete: false, produced }).catch(() => undefined);
    throw err;
  } finally {
    deps.metrics?.streamClosed();
  }
}
