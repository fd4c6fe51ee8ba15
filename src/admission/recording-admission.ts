import { inSpan, tracingOn } from '../platform/tracing/index.js';
import type { Admission, AdmissionTicket } from './admission-types.js';
import { withAdmit } from './with-admit.js';
import { andThen } from '../platform/util/index.js';
import type { ChargeOutcome, DraftLookup, RecordDraft } from '../ledger/index.js';

/**
 * A ticket whose durable charge also lands in the request's record draft. A class, not an
 * object literal with a getter and spread members: such a literal is built on V8's slow path
 * into a dictionary-mode object, on every request.
 */
class RecordingTicket implements AdmissionTicket {
  readonly requestId: string;

  constructor(
    private readonly inner: AdmissionTicket,
    private readonly draft: RecordDraft,
  ) {
    this.requestId = inner.requestId;
  }

  // Bound when read, not when built: few requests grow or free a slot, and binding both for
  // every request was most of what wrapping its ticket cost.
  get grow(): ((extra: bigint) => Promise<boolean>) | undefined {
    return this.inner.grow?.bind(this.inner);
  }

  get freeStreamSlot(): (() => Promise<void>) | undefined {
    return this.inner.freeStreamSlot?.bind(this.inner);
  }

  get held(): bigint {
    return this.inner.held;
  }

  async settle(...[cost, units, priced, detail]: Parameters<AdmissionTicket['settle']>): Promise<ChargeOutcome> {
    const outcome = await inSpan('ledger.commit', { 'farebox.request_id': this.requestId }, () => this.inner.settle(cost, units, priced, detail));
    this.draft.settled(outcome, units, detail?.tokenSource);
    return outcome;
  }

  release(charged?: ChargeOutcome): Promise<void> {
    return this.inner.release(charged);
  }
}

/**
 * The same admission, except that `admit` tells the request's draft which model and provider
 * serve it, takes the end user the request names from it, and wraps the ticket so the durable
 * charge lands in the draft too. Every front
 * (chat, Responses, Messages, images, OCR) admits and settles through a ticket, so this one
 * seam sees them all without the services knowing about records. Other members pass through.
 */
export function recordingAdmission<A extends Admission>(inner: A, drafts: DraftLookup): A {
  const admit: Admission['admit'] = (request) => {
    try {
      const draft = drafts.draft(request.requestId);
      draft?.admitted(request.model.id, request.model.doc.provider, request.stream);
      // The end user comes from the request as the client sent it (header or body field).
      const named = request.endUser === undefined ? draft?.endUserSource() : undefined;
      if (draft && named?.id !== undefined) draft.endUser = named.id;
      const admitted = named === undefined ? request : { ...request, endUser: named.id, endUserParam: named.param };
      // A ticket given at once is passed on at once: no span to time, no promise to wait for.
      const ticket = tracingOn() ? inSpan('admission', { 'farebox.request_id': request.requestId, 'gen_ai.request.model': request.model.id }, async () => inner.admit(admitted)) : inner.admit(admitted);
      if (draft === undefined) return ticket;
      return andThen(ticket, (t) => new RecordingTicket(t, draft));
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return withAdmit(inner, admit);
}
