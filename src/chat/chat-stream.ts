import { classifyError } from '../errors/classify-error.js';
import { toGatewayError, type GatewayError } from '../errors/gateway-error.js';
import type { ChatStreamEvent, TokenUsage } from '../providers/chat/chat-types.js';
import { readReasoning, streamEventWithoutReasoning } from '../providers/chat/reasoning-options.js';
import type { AdmittedChat } from './chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { ChatSettlement, type Settled } from './chat-settlement.js';
import { firstUpstreamEvent } from './first-upstream-event.js';
import { chunkWire, errorChunkWire, usageChunkWire, usageWire } from './chat-wire.js';
import { ProducedText } from './produced-text.js';

/** Where stream chunks go; the HTTP edge frames them (SSE), the service never sees bytes. */
export interface ChunkSink {
  /** True once the client went away; writes are then ignored. */
  readonly closed: boolean;
  /** Commits to a stream: status 200 and headers go out. */
  open(): void;
  /** Sends one chunk; resolves when the transport can take more. */
  send(chunk: unknown): Promise<void>;
  /** Ends the stream (`[DONE]`). */
  finish(): Promise<void>;
}

type Iter = AsyncIterator<ChatStreamEvent>;

/** How the relay loop ended. */
interface RelayEnd {
  usage: TokenUsage | undefined;
  failure: GatewayError | undefined;
}

async function relay(admitted: AdmittedChat, first: IteratorResult<ChatStreamEvent>, iterator: Iter, sink: ChunkSink, produced: ProducedText): Promise<RelayEnd> {
  const exclude = readReasoning(admitted.body).exclude;
  let usage: TokenUsage | undefined;
  try {
    for (let step = first; !step.done && !sink.closed; step = await iterator.next()) {
      const event = step.value;
      if (event.kind === 'usage') {
        usage = event.usage;
        continue;
      }
      produced.add(event.choices);
      const shown = exclude ? streamEventWithoutReasoning(event) : event;
      if (shown?.kind === 'delta') await sink.send(chunkWire(admitted.meta, shown.choices));
    }
    return { usage, failure: undefined };
  } catch (err) {
    // After a client disconnect the upstream was aborted on purpose: not a failure to report.
    return { usage, failure: sink.closed ? undefined : toGatewayError(err) };
  } finally {
    // Stops the upstream when the relay ends early (client gone); a no-op after normal end.
    await iterator.return?.().catch(() => undefined);
  }
}

async function fallbackUsage(admitted: AdmittedChat, produced: ProducedText): Promise<TokenUsage> {
  return { promptTokens: await admitted.promptTokens(), completionTokens: await produced.tokens(), reasoningTokens: 0 };
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
  await sink.send(usageChunkWire(admitted.meta, usageWire(result.usage, result.cost)));
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
  const iterator = admitted.chat.stream({ upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal })[Symbol.asyncIterator]();
  const first = await firstUpstreamEvent(deps, admitted.providerId, settlement, iterator);
  if (sink.closed) {
    // The client left before anything was sent: like a failed call, nothing is owed.
    await iterator.return?.().catch(() => undefined);
    await settlement.release();
    return;
  }
  deps.metrics?.streamOpened();
  const produced = new ProducedText();
  try {
    sink.open();
    const end = await relay(admitted, first, iterator, sink, produced);
    await closeStream(deps, admitted, sink, end, settlement.settle(end.usage ?? (await fallbackUsage(admitted, produced))));
  } catch (err) {
    // Something unexpected after admission: still bill what was produced, once, so the
    // hold and the stream slot are freed.
    await fallbackUsage(admitted, produced)
      .then((usage) => settlement.settle(usage))
      .catch(() => undefined);
    throw err;
  } finally {
    deps.metrics?.streamClosed();
  }
}
