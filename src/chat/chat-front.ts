import type { AdmittedChat, FrontHoldInputs } from './admit/chat-admit.js';
import type { ChunkSink } from './wire/chunk-sink.js';
import type { EventSink } from './wire/client-channel.js';

/**
 * What one front door (Chat Completions, Responses, Messages) adds to the shared chat path:
 * the mapping of its request to a chat request, and how its answer looks on its wire.
 * Admission, abort on disconnect, the upstream call, settlement and the hold's release are
 * the runner's (see front-runner.ts), so every door behaves the same.
 */
export interface ChatFront {
  /** The client's request as a chat request (admission validates it). */
  readonly chatBody: unknown;
  /**
   * Billed inputs the chat form does not carry (the Messages relay's own blocks and tools),
   * for the provider the model resolved to: only a provider that gets them is held for them.
   */
  holdInputs?(providerId: string): FrontHoldInputs;
  /** Chooses how the admitted request runs; a throw refuses it (the hold is released). */
  plan(admitted: AdmittedChat): FrontPlan | Promise<FrontPlan>;
}

/** Through the chat adapters, with this front's wire format on the way out. */
export interface TranslatedPlan {
  readonly kind: 'chat';
  /** Response headers this translation adds (e.g. the hosted tools it left out). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The non-streamed answer, built from the chat completion body. */
  answer(completion: Record<string, unknown>): unknown;
  /** A chunk sink that writes this front's events. */
  sink(events: EventSink): ChunkSink;
}

/** Straight to a provider that speaks this front's wire natively. */
export interface RelayPlan {
  readonly kind: 'relay';
  /** Headers of this plan's streams: the vendor API's own (its request-id headers). */
  readonly streamHeaders: Readonly<Record<string, string>>;
  complete(signal: AbortSignal): Promise<unknown>;
  stream(events: EventSink, signal: AbortSignal): Promise<void>;
}

export type FrontPlan = TranslatedPlan | RelayPlan;
