/** A response kept for replays. */
export interface StoredResponse {
  status: number;
  contentType: string;
  /** The body as sent (JSON text, or the SSE text of a stream). */
  body: string;
  /** Request id of the run that produced it. */
  requestId: string;
  /** Bytes of a body too large to have been captured (then `body` is empty). */
  oversize?: number;
}

/** What the store holds for one key, as JSON in Redis. */
export type Entry =
  | { s: 'run'; fp: string; owner: string; stream: boolean }
  | {
      s: 'done';
      fp: string;
      owner: string;
      stream: boolean;
      status: number;
      ctype: string;
      /** The body inline, when small enough. */
      body?: string;
      /** Where a large body is kept instead (a reference into MongoDB). */
      ref?: string;
      /** Bytes of the body; with neither `body` nor `ref` it exceeded the stored-response bound. */
      size: number;
    };

/** What a request finds when it claims its key. */
export type Claim =
  | { kind: 'claimed' }
  | { kind: 'reused' }
  | { kind: 'running'; stream: boolean }
  | { kind: 'done'; response: StoredResponse | undefined; size: number };

/** Bounds of what is kept (documented in docs/money-and-holds.md, "Verifying your bill"). */
export interface IdempotencyLimits {
  /** How long a finished response is kept (24 h). */
  keepMs: number;
  /** How long a running claim lives without finishing (a crashed process frees it then). */
  runningMs: number;
  /** Largest body kept inline in Redis; larger ones are kept in MongoDB by reference. */
  inlineBytes: number;
  /** Largest body kept at all. */
  maxBytes: number;
}

/** Default bounds. */
export const DEFAULT_LIMITS: IdempotencyLimits = {
  keepMs: 24 * 3600 * 1000,
  runningMs: 15 * 60 * 1000,
  inlineBytes: 256 * 1024,
  maxBytes: 64 * 1024 * 1024,
};
