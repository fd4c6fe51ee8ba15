import type { ChatServiceDeps } from '../../chat-service-deps.js';
import { ChatSettlement } from '../../settle/chat-settlement.js';
import type { EventSink } from '../../wire/client-channel.js';
import { openUpstreamStream } from '../../routes/upstream-call.js';
import { classifyError, GatewayError, toGatewayError } from '../../../platform/errors/index.js';
import type { JsonRecord, RelayedEvent, TokenUsage } from '../../../providers/index.js';
import { ProducedText } from '../../wire/produced-text.js';
import { relayCall, withReasoning, type RelayedRequest } from './relay-complete.js';

type Iter = AsyncIterator<RelayedEvent>;

/** What the relay loop saw. */
interface RelayState {
  usage: TokenUsage | undefined;
  produced: ProducedText;
  failure: GatewayError | undefined;
  /** A charge was made (or tried): the settlement answers every later call with it. */
  charged: boolean;
  /** The upstream ended its stream itself (its closing event, or its own `error` event). */
  ended: boolean;
}

/** An event sent as the upstream sent it: its `type` as the event name, then its data. */
function send(writer: EventSink, data: JsonRecord): Promise<void> {
  return writer.send(data, String(data.type));
}

/**
 * Streams a relayed call. The first upstream event is awaited before anything is written, so
 * failures up to then are a normal error answer (nothing charged). After that every upstream
 * event goes out unchanged but for the model's name; at the first event with the final usage
 * the request is charged durably and that event carries `usage.cost`. A stream that ends
 * without it (client gone, upstream failure) is billed once for what was produced, and an
 * upstream failure is reported with the API's own error event.
 */
export async function streamRelayed(deps: ChatServiceDeps, request: RelayedRequest, writer: EventSink, signal: AbortSignal): Promise<void> {
  const { admitted } = request;
  const settlement = new ChatSettlement(deps, admitted);
  const opened = await openUpstreamStream(deps, admitted, settlement, request.relay.stream(relayCall(request, signal)), () => writer.closed);
  if (opened === undefined) return;
  const { first, iterator } = opened;
  deps.metrics?.streamOpened();
  writer.open(request.wire.streamHeaders(admitted.requestId));
  const state: RelayState = { usage: undefined, produced: new ProducedText(), failure: undefined, charged: false, ended: false };
  try {
    await relay(deps, request, settlement, first, iterator, writer, state);
    if (!state.charged) {
      await settlement.settle({ usage: state.usage, complete: false, produced: state.produced }).catch((err: unknown) => {
        deps.log.error({ err, request_id: admitted.requestId }, 'stream charge failed');
      });
    }
    if (state.failure !== undefined) {
      deps.requests?.draft(admitted.requestId)?.failed(state.failure.code);
      if (!writer.closed) await send(writer, request.wire.errorEvent(state.failure));
    }
    await writer.end(false);
  } finally {
    deps.metrics?.streamClosed();
  }
}

async function relay(
  deps: ChatServiceDeps,
  request: RelayedRequest,
  settlement: ChatSettlement,
  first: IteratorResult<RelayedEvent>,
  iterator: Iter,
  writer: EventSink,
  state: RelayState,
): Promise<void> {
  try {
    for (let step = first; !step.done; step = await iterator.next()) {
      const { data, usage, final, produced, reasoning } = step.value;
      state.usage = usage;
      state.produced.addText(produced, reasoning ? 'reasoning' : 'visible');
      // A client that left still gets billed from the upstream's final counts, read for a
      // bounded time after it went (the upstream signal's usage grace).
      if (writer.closed) {
        if (final) break;
        continue;
      }
      let out = request.wire.withCatalogModel(data, request.admitted.model.id);
      if (final && !state.charged) out = await withCharge(deps, request, settlement, state, out);
      await send(writer, out);
      if (request.wire.ends(String(data.type))) state.ended = true;
    }
    if (!state.ended && !writer.closed) state.failure = new GatewayError('upstream_error', `The upstream provider ended the stream before ${request.wire.endEvent}`);
  } catch (err) {
    // After a client disconnect the upstream was aborted on purpose: not a failure to report.
    if (!writer.closed) state.failure = toGatewayError(err);
  } finally {
    await iterator.return?.().catch(() => undefined);
  }
}

/** Charges the final usage durably, then shows its cost in the event that carries it. */
async function withCharge(deps: ChatServiceDeps, request: RelayedRequest, settlement: ChatSettlement, state: RelayState, data: JsonRecord): Promise<JsonRecord> {
  state.charged = true;
  try {
    // The upstream's final counts are billed as reported, like the translated path does.
    const settled = await settlement.settle({ usage: await withReasoning(state.usage, state.produced), complete: true, produced: state.produced });
    return request.wire.withCost(data, settled);
  } catch (err) {
    deps.log.error({ err, request_id: request.admitted.requestId }, 'stream charge failed');
    // The cost is not durable, so it is not reported.
    state.failure = classifyError(err);
    return data;
  }
}

