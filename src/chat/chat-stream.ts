import { classifyError } from '../platform/errors/index.js';
import type { AdmittedChat } from './admit/chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { AnswerSoFar } from './continue/answer-so-far.js';
import { continueStream, type NextRoutes, type StreamLeg } from './continue/continue-stream.js';
import { ChatSettlement, type Settled } from './settle/chat-settlement.js';
import type { ChunkSink } from './wire/chunk-sink.js';
import { errorChunkWire, type CompletionMeta, usageChunkWire, usageWire } from './wire/chat-wire.js';
import { ProducedText } from './wire/produced-text.js';
import { relayStream, skippedEvents } from './wire/stream-relay.js';
import { openUpstreamStream } from './routes/upstream-call.js';

export type { NextRoutes } from './continue/continue-stream.js';

async function closeStream(deps: ChatServiceDeps, meta: CompletionMeta, leg: StreamLeg, sink: ChunkSink): Promise<void> {
  const { admitted, end } = leg;
  const settled: Promise<Settled> = leg.settlement.settle({ usage: end.usage, complete: end.final, produced: leg.produced });
  if (end.failure !== undefined) {
    deps.requests?.draft(admitted.requestId)?.failed(end.failure.code);
    if (!sink.closed) await sink.send(errorChunkWire(meta, end.failure));
  }
  let result: Settled;
  try {
    result = await settled;
  } catch (err) {
    const failure = classifyError(err);
    deps.log.error({ err, request_id: admitted.requestId }, 'stream charge failed');
    // The cost is not durable, so it is not reported; the client still gets a clean end.
    if (!sink.closed) await sink.send(errorChunkWire(meta, failure));
    await sink.finish();
    return;
  }
  if (sink.closed) return;
  await sink.send(usageChunkWire(meta, usageWire(result)));
  await sink.finish();
}

/**
 * Streams a completion. The first upstream item is awaited before anything is written, so
 * failures up to then become a normal JSON error (and nothing is charged). After that the
 * stream always ends with a usage chunk and `[DONE]`: an upstream that breaks mid-answer is
 * continued on the `next` routes that take prefill (see continueStream) and, where none can,
 * becomes an error chunk first; a client disconnect aborts the upstream. Either way what was
 * produced is billed (upstream usage if it arrived, else a token count; each leg at its
 * route's prices) exactly once, durably, before the usage chunk that reports it.
 */
export async function streamChat(deps: ChatServiceDeps, admitted: AdmittedChat, sink: ChunkSink, signal: AbortSignal, next?: NextRoutes): Promise<void> {
  const settlement = new ChatSettlement(deps, admitted);
  const started = performance.now();
  const upstream = admitted.chat.stream({ upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal });
  const opened = await openUpstreamStream(deps, admitted, settlement, upstream, () => sink.closed);
  if (opened === undefined) return;
  deps.metrics?.streamOpened();
  // The legs that ran: the last one settles them all.
  let last = { settlement, produced: new ProducedText() };
  try {
    sink.open();
    const answer = new AnswerSoFar();
    const skipped = skippedEvents(deps.log, admitted.requestId, admitted.key);
    const watch = next === undefined ? { skipped } : { seen: answer.add.bind(answer), skipped };
    const end = await relayStream(admitted.meta, { ...opened, body: admitted.body }, sink, last.produced, watch);
    let leg: StreamLeg = { admitted, settlement, produced: last.produced, end, number: 1, started };
    if (next !== undefined && end.failure !== undefined) {
      leg = await continueStream(deps, leg, { meta: admitted.meta, sink, signal, answer, next }, (ran) => (last = ran));
    }
    await closeStream(deps, admitted.meta, leg, sink);
  } catch (err) {
    // Something unexpected after admission: still bill what was produced, once, so the
    // hold and the stream slot are freed.
    await last.settlement.settle({ usage: undefined, complete: false, produced: last.produced }).catch(() => undefined);
    throw err;
  } finally {
    deps.metrics?.streamClosed();
  }
}
