/**
 * Chat: the three doors (Chat Completions, Responses, Messages), admission, routes and settlement of a chat request.
 * This file is the module's face: code outside the module imports from here only.
 */
export { largestAffordableMaxTokens } from './admit/chat-estimate.js';
export { chatWorstCase, holdLinesWire } from './admit/chat-worst-case.js';
export type { ChatFront, FrontPlan, TranslatedPlan } from './chat-front.js';
export type { ChatServiceDeps } from './chat-service-deps.js';
export { countInputTokens, type InputTokenCount } from './doors/count/count-input-tokens.js';
export { CountLimiter } from './doors/count/count-limiter.js';
export { type ChatDoor, doorFront } from './doors/door-table.js';
export { type DoorEvent, type DoorStreamForm, doorStreamForm } from './doors/door-stream-form.js';
export { type ReplayFacts, replayPlan } from './doors/replay-plan.js';
export { runChatFront } from './front-runner.js';
export { GraceReads } from './settle/grace-reads.js';
export type { ChunkSink } from './wire/chunk-sink.js';
export { completionId } from './admit/chat-admit.js';
export type { ClientChannel, ClientDeparture, EventSink } from './wire/client-channel.js';
