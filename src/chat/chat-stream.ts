import { classifyError } from '../platform/errors/index.js';
import type { ChatStreamEvent } from '../providers/index.js';
import type { AdmittedChat } from './admit/chat-admit.js';
import type { ChatServiceDeps } from './chat-service-deps.js';
import { AnswerSoFar } from './continue/answer-so-far.js';
import { continueStream, type NextRoutes, type StreamLeg } from './continue/continue-stream.js';
import { ChatSettlement, type Settled } from './settle/chat-settlement.js';
import type { ChunkSink } from './wire/chunk-sink.js';
import { errorChunkWire, type CompletionMeta, usageChunkWire, usageWire } from './wire/chat-wire.js';
import { ProducedText } from './wire/produced-text.js';
import { relayStream, skippedEvents } from './wire/stream-relay.js';
import { type OpenedStream, openUpstreamStream } from './routes/upstream-call.js';
import { anyRouteAvailable, streamLimits } from './routes/stream-limits.js';
import { StreamWatch } from './routes/stream-watch.js';

export type { NextRoutes } from './continue/continue-stream.js';

async function closeStream(deps: ChatServiceDeps, meta: CompletionMeta, leg: StreamLeg, sink: ChunkSink): Promise<void> {
  const { admitted, end } = leg;
  const settled: Promise<Settled> = leg.settlement.settle({ usage: end.usage, complete: end.final, produced: leg.produced, cut: end.failure !== undefined });
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
 * Relays an opened stream to the client, continues it on the `next` routes if it breaks
 * mid-answer, and closes it with its usage: every leg that ran settled once, together.
 */
async function relayLegs(deps: ChatServiceDeps, first: Omit<StreamLeg, 'end' | 'produced'>, opened: OpenedStream<ChatStreamEvent>, sink: ChunkSink, signal: AbortSignal, next?: NextRoutes): Promise<void> {
  const { admitted } = first;
  // The legs that ran: the last one settles them all.
  let last = { settlement: first.settlement, produced: new ProducedText() };
  try {
    sink.open();
    const answer = new AnswerSoFar();
    const skipped = skippedEvents(deps.log, admitted.requestId, admitted.key);
    const observers = next === undefined ? { skipped } : { seen: answer.add.bind(answer), skipped };
    const end = await relayStream(admitted.meta, { ...opened, body: admitted.body }, sink, last.produced, observers);
    let leg: StreamLeg = { ...first, produced: last.produced, end };
    if (next !== undefined && end.failure !== undefined) {
      leg = await continueStream(deps, leg, { meta: admitted.meta, sink, signal, answer, next }, (ran) => (last = ran));
    }
    await closeStream(deps, admitted.meta, leg, sink);
  } catch (err) {
    // Something unexpected after admission: still bill what was produced, once, so the
    // hold and the stream slot are freed.
    await last.settlement.settle({ usage: undefined, complete: false, produced: last.produced }).catch(() => undefined);
    throw err;
  }
}

/**
 * Streams a completion. The first visible upstream item is awaited before anything is
 * written, so failures up to then become a normal JSON error (and nothing is charged); a
 * route with another after it that sends no token in time fails over like one that fails
 * (see streamLimits). After that the stream always ends with a usage chunk and `[DONE]`: an
 * upstream that breaks or stalls mid-answer is continued on the `next` routes that take
 * prefill (see continueStream) and, where none can, becomes an error chunk first; a client
 * disconnect aborts the upstream. Either way what was produced is billed (upstream usage if it
 * arrived, else a token count; each leg at its route's prices) exactly once, durably, before
 * the usage chunk that reports it.
 */
export async function streamChat(deps: ChatServiceDeps, admitted: AdmittedChat, sink: ChunkSink, signal: AbortSignal, next?: NextRoutes): Promise<void> {
  const settlement = new ChatSettlement(deps, admitted);
  const started = performance.now();
  const watch = new StreamWatch(signal, streamLimits(deps.requestTiming, admitted, anyRouteAvailable(deps.routeHealth, next?.routes ?? [])));
  try {
    const upstream = admitted.chat.stream({ upstreamModel: admitted.model.doc.upstream_model, body: admitted.body, signal: watch.signal });
    const opened = await openUpstreamStream(deps, admitted, settlement, watch.events(upstream), () => sink.closed);
    if (opened === undefined) return;
    deps.metrics?.streamOpened();
    try {
      await relayLegs(deps, { admitted, settlement, number: 1, started }, opened, sink, signal, next);
    } finally {
      deps.metrics?.streamClosed();
    }
  } finally {
    watch.dispose();
  }
}
