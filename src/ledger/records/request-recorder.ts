import type { Clock } from '../../billing/index.js';
import type { CatalogCache } from '../../catalog/index.js';
import { ERROR_TABLE } from '../../platform/errors/index.js';
import type { KeyDoc } from '../../accounts/index.js';
import { RecordDraft, usageOf } from './record-draft.js';
import { receiptFacts } from './record-receipt.js';
import type { RecordWriter } from './record-writer.js';
import type { DraftLookup } from './record-draft.js';
import type { OutcomeObserver } from './request-outcome.js';
import type { RequestRecordDoc } from './request-record-types.js';

/** Label for anything that is not a catalog id, so client input never makes a series. */
const OTHER = 'other';
/** Longest requested-model string kept on a record whose model never resolved. */
const MAX_MODEL_CHARS = 200;

/** How a request ended, as the HTTP edge saw it. */
export interface RequestEnd {
  /** The authenticated key; without one the request is counted but not recorded. */
  key: KeyDoc | undefined;
  status: number;
  /** `error.code` of the body sent, if any. */
  errorCode: string | undefined;
  /** The `model` the client sent, used when admission never resolved one. */
  requestedModel: string | undefined;
  /** Whether the client asked for a stream, used when admission never saw the request. */
  requestedStream: boolean;
}

/**
 * Keeps the drafts of the inference requests in flight (by request id, so admission can fill
 * them) and turns each finished one into outcome metrics and a stored record.
 */
export class RequestRecorder implements DraftLookup {
  private readonly drafts = new Map<string, RecordDraft>();

  constructor(
    private readonly writer: RecordWriter,
    private readonly metrics: OutcomeObserver,
    private readonly catalog: Pick<CatalogCache, 'get'>,
    private readonly clock: Clock,
  ) {}

  /** Starts the draft of a request on an inference endpoint. */
  open(requestId: string, endpoint: string): RecordDraft {
    const draft = new RecordDraft(requestId, endpoint, this.clock(), performance.now());
    this.drafts.set(requestId, draft);
    return draft;
  }

  /** The open draft of a request, if it is an inference request still running. */
  draft(requestId: string): RecordDraft | undefined {
    return this.drafts.get(requestId);
  }

  /** Ends a draft: metrics always, a record when a key owns the request. */
  finish(draft: RecordDraft, end: RequestEnd): void {
    this.drafts.delete(draft.requestId);
    const model = draft.model ?? end.requestedModel?.slice(0, MAX_MODEL_CHARS);
    const known = model === undefined ? undefined : this.catalog.get(model);
    const usage = draft.units === undefined ? {} : usageOf(draft.units);
    const failure = end.status >= 400 ? end.errorCode : draft.failure;
    const code = end.status >= 400 || failure !== undefined ? knownCode(failure) : undefined;
    this.metrics.finished({
      endpoint: draft.endpoint,
      model: known?.id ?? OTHER,
      provider: known?.doc.provider ?? OTHER,
      status: end.status,
      code,
      usage,
      cost: draft.cost,
    });
    if (end.key === undefined) return;
    const provider = draft.provider ?? known?.doc.provider ?? null;
    const doc = toDoc(draft, end, end.key, { model: model ?? null, provider, usage, code });
    // The receipt itself is built and signed when it is read: the record keeps only the facts
    // it does not already hold, so the hot path neither formats nor stores it.
    if (draft.charge !== undefined && draft.units !== undefined && known !== undefined) {
      doc.receipt_facts = receiptFacts(doc, { model: known, charge: draft.charge, tokenSource: draft.tokenSource, failure: draft.failure, cacheHitOf: draft.cacheHitOf, settledAt: draft.settledAt ?? this.clock() });
    }
    this.writer.add(doc);
  }

  /** Writes every buffered record (shutdown). */
  drain(): Promise<void> {
    return this.writer.drain();
  }

  /** Records not yet written. */
  get pending(): number {
    return this.writer.pending;
  }
}

function knownCode(code: string | undefined): string {
  return code !== undefined && Object.hasOwn(ERROR_TABLE, code) ? code : OTHER;
}

interface Resolved {
  model: string | null;
  provider: string | null;
  usage: RequestRecordDoc['usage'];
  code: string | undefined;
}

function toDoc(draft: RecordDraft, end: RequestEnd, key: KeyDoc, r: Resolved): RequestRecordDoc {
  return {
    _id: draft.requestId,
    account_id: key.account_id,
    key_id: key._id,
    ...(draft.endUser !== undefined ? { end_user: draft.endUser } : {}),
    endpoint: draft.endpoint,
    model: r.model,
    provider: r.provider,
    stream: draft.stream ?? end.requestedStream,
    status: end.status,
    error_code: r.code ?? null,
    usage: r.usage,
    cost: draft.cost,
    ...(draft.bill !== undefined ? { cost_details: draft.bill.lines, price_version: draft.bill.priceVersion } : {}),
    latency_ms: Math.round(performance.now() - draft.startedMs),
    created_at: draft.createdAt,
    ...(draft.attempts.length > 0 ? { attempts: [...draft.attempts] } : {}),
  };
}
