import type { AttemptSink } from '../../routing/index.js';
import type { AdmittedChat, AdmittedRequest, AdmittedRoute } from '../admit/chat-admit.js';
import type { ChatSettlement } from '../settle/chat-settlement.js';
import type { ChunkSink } from '../wire/chunk-sink.js';
import type { CompletionMeta } from '../wire/chat-wire.js';
import type { ProducedText } from '../wire/produced-text.js';
import type { RelayEnd } from '../wire/stream-relay.js';
import type { AnswerSoFar } from './answer-so-far.js';

/** The routes a stream may go on with once the route answering it broke mid-answer. */
export interface NextRoutes {
  /** The admitted request: its id, its ticket (whose hold must cover every leg) and meta. */
  readonly request: AdmittedRequest;
  /** The routes after the answering one, in the order they would have been tried. */
  readonly routes: readonly AdmittedRoute[];
  /** Where the request's attempts are recorded. */
  readonly attempts?: AttemptSink | undefined;
}

/** One leg of a streamed answer: the route it ran on, what it produced, how it ended, and its settlement. */
export interface StreamLeg {
  readonly admitted: AdmittedChat;
  /** Settles this leg together with every earlier one. */
  readonly settlement: ChatSettlement;
  readonly produced: ProducedText;
  readonly end: RelayEnd;
  /** 1 for the route that answered first. */
  readonly number: number;
  /** When its upstream call started (performance.now()). */
  readonly started: number;
}

/** What going on with a stream needs: where its chunks go, as which completion, and the answer so far. */
export interface ContinueContext {
  readonly meta: CompletionMeta;
  readonly sink: ChunkSink;
  readonly signal: AbortSignal;
  readonly answer: AnswerSoFar;
  readonly next: NextRoutes;
}
