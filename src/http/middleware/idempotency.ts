import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import { GatewayError } from '../../platform/errors/index.js';
import type { IdempotencyStore, StoredResponse } from '../../platform/idempotency/index.js';
import { canonicalJson } from '../../platform/util/index.js';
import { requireKey, type GatewayContext, type GatewayState } from '../state.js';
import { captureWrites } from './response-capture.js';

/** 1–255 printable ASCII characters, as Stripe and the IETF draft allow. */
const VALID_KEY = /^[\x20-\x7e]{1,255}$/;
/** How often a replay looks whether the run it waits for has finished. */
const POLL_MS = 50;

/** Options of {@link idempotency}. */
export interface IdempotencyOptions {
  /** What identifies the request's content (default: the parsed JSON body). */
  readonly content?: (ctx: GatewayContext) => Promise<unknown>;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function headerKey(ctx: GatewayContext): string | undefined {
  const raw = ctx.get('idempotency-key') || ctx.get('x-idempotency-key');
  if (!raw) return undefined;
  if (!VALID_KEY.test(raw)) throw new GatewayError('invalid_request', 'Idempotency-Key must be 1 to 255 printable characters.', { param: 'Idempotency-Key' });
  return raw;
}

function isStream(content: unknown): boolean {
  return typeof content === 'object' && content !== null && (content as { stream?: unknown }).stream === true;
}

function replay(ctx: GatewayContext, stored: StoredResponse): void {
  ctx.status = stored.status;
  ctx.type = stored.contentType;
  ctx.set('Idempotent-Replayed', 'true');
  ctx.set('X-Original-Request-Id', stored.requestId);
  ctx.body = stored.body;
}

/** The response a handler produced, as text, or undefined when it cannot be kept. */
function produced(ctx: GatewayContext, streamedText: string | undefined, streamedBytes: number): StoredResponse | undefined {
  // An answer committed early (see KeptAnswer) still has its body in ctx.body, like any other.
  const streamed = ctx.respond === false && ctx.state.kept?.committed !== true;
  const status = streamed ? ctx.res.statusCode : ctx.status;
  const contentType = String(streamed ? (ctx.res.getHeader('content-type') ?? 'text/event-stream') : ctx.response.type || 'application/json');
  const requestId = ctx.state.requestId;
  // A stream over the bound is still recorded as done (it was charged), without its body.
  if (streamed) return streamedText === undefined ? { status, contentType, body: '', requestId, oversize: streamedBytes } : { status, contentType, body: streamedText, requestId };
  const body: unknown = ctx.body;
  if (typeof body === 'string') return { status, contentType, body, requestId };
  if (Buffer.isBuffer(body)) return { status, contentType, body: body.toString('utf8'), requestId };
  if (typeof body === 'object' && body !== null && typeof (body as { pipe?: unknown }).pipe !== 'function') {
    return { status, contentType, body: JSON.stringify(body), requestId };
  }
  return undefined;
}

/**
 * `Idempotency-Key` on an inference route (after authentication): the same key and content
 * within 24 h give the stored answer and charge nothing more; a run still going is awaited
 * (streams: 409 `idempotency_in_progress`); other content under the same key gets 409
 * `idempotency_key_reused`. Only 2xx answers are kept: a refusal or failure frees the key.
 */
export function idempotency(store: IdempotencyStore, options: IdempotencyOptions = {}): Middleware<GatewayState> {
  const contentOf = options.content ?? (async (ctx: GatewayContext) => ctx.request.body);
  return async function idempotencyMiddleware(ctx, next) {
    const key = headerKey(ctx);
    if (key === undefined) return next();
    const accountId = requireKey(ctx).account_id;
    const content = await contentOf(ctx);
    const fingerprint = createHash('sha256').update(`${ctx.method} ${ctx.path}\n${canonicalJson(content)}`).digest('hex');
    const claim = { fingerprint, owner: ctx.state.requestId, stream: isStream(content) };
    let gone = false;
    ctx.res.once('close', () => (gone = !ctx.res.writableFinished));
    for (;;) {
      const found = await store.claim(accountId, key, claim);
      if (found.kind === 'claimed') break;
      if (found.kind === 'reused') throw new GatewayError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body.', { param: 'Idempotency-Key' });
      if (found.kind === 'done') {
        if (found.response) return replay(ctx, found.response);
        throw new GatewayError('idempotency_key_reused', `The request with this Idempotency-Key already ran and was charged once; its response (${found.size} bytes) was over the stored-response bound and cannot be replayed.`, { param: 'Idempotency-Key' });
      }
      if (found.stream || claim.stream) throw new GatewayError('idempotency_in_progress', 'A stream with this Idempotency-Key is still running; retry once it has finished.', { param: 'Idempotency-Key', retryAfterSeconds: 1 });
      if (gone) return;
      await sleep(POLL_MS);
    }
    await run(ctx, next, store, { accountId, key, claim });
  };
}

async function run(
  ctx: GatewayContext,
  next: () => Promise<unknown>,
  store: IdempotencyStore,
  at: { accountId: string; key: string; claim: { fingerprint: string; owner: string; stream: boolean } },
): Promise<void> {
  const capture = captureWrites(ctx.res, store.limits.maxBytes);
  let response: StoredResponse | undefined;
  try {
    await next();
    response = produced(ctx, capture.text(), capture.bytes());
  } finally {
    capture.stop();
    const ok = response !== undefined && response.status >= 200 && response.status < 300;
    // Storing must not turn a delivered answer into an error; a lost entry only means a later
    // replay runs again, as without a key.
    await (ok ? store.complete(at.accountId, at.key, at.claim, response!) : store.abandon(at.accountId, at.key, at.claim.owner)).catch(() => undefined);
  }
}
