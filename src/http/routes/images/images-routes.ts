import { createHash } from 'node:crypto';
import { Router } from '@koa/router';
import type { Middleware } from 'koa';
import { EDIT_FILE_FIELDS, editImages, generateImages, imagesBody, type ImagesResponse, MAX_EDIT_IMAGES, type MultipartForm } from '../../../images/index.js';
import type { KeyAuthenticator } from '../../../accounts/index.js';
import type { AsyncAnswer, QueuedServiceDeps } from '../../../queue/index.js';
import type { CeilingRegistry } from '../../../quote/index.js';
import { parseUsdAmount } from '../../../billing/index.js';
import type { IdempotencyStore } from '../../../platform/idempotency/index.js';
import { authenticate } from '../../middleware/authenticate.js';
import { idempotency } from '../../middleware/idempotency.js';
import { costCeiling } from '../../middleware/cost-ceiling.js';
import type { GatewayContext, GatewayState } from '../../state.js';
import { serveQueued } from '../jobs/queued-answer.js';
import { parseMultipart } from './parse-multipart.js';

/** What the queue-backed routes need: the services' deps, key auth and the RPM middleware. */
export interface QueuedRouteDeps extends QueuedServiceDeps {
  readonly keyAuth: KeyAuthenticator;
  /** Per-key RPM check that also sets the `X-RateLimit-*` headers. */
  readonly rateLimit: Middleware<GatewayState>;
  /** Idempotency keys and the responses kept for replays. */
  readonly idempotency: IdempotencyStore;
  /** Each request's own `max_cost`, registered for admission. */
  readonly ceilings: CeilingRegistry;
}

/** Text fields of an edit form: a prompt of up to 32,000 characters plus a few short options. */
const EDIT_FIELD_BYTES = 256 * 1024;

/**
 * Reads the edit form. On a refused form the rest of the body is drained, not buffered, and
 * the connection is closed after the answer, so a client still uploading gets the 413.
 */
async function readEditForm(ctx: GatewayContext, fileBytes: number): Promise<MultipartForm> {
  try {
    return await parseMultipart(ctx.req, {
      fileBytes,
      fileFields: EDIT_FILE_FIELDS,
      maxFiles: MAX_EDIT_IMAGES + 1,
      fieldBytes: EDIT_FIELD_BYTES,
      maxFields: 50,
    });
  } catch (err) {
    ctx.set('Connection', 'close');
    ctx.req.resume();
    throw err;
  }
}

/** The images as JSON bytes (see imagesBody): megabytes of base64 are not stringified. */
function answer(response: ImagesResponse): AsyncAnswer {
  return { status: 200, body: imagesBody(response) };
}

/**
 * `POST /v1/images/generations` (JSON) and `POST /v1/images/edits` (multipart, as the OpenAI
 * SDK's `images.edit` sends it): inference key → RPM → validation → model → admission → job.
 */
export function imagesRoutes(deps: QueuedRouteDeps): Router<GatewayState> {
  const router = new Router<GatewayState>({ prefix: '/v1' });
  const auth = authenticate(deps.keyAuth, ['inference']);
  router.post('/images/generations', auth, deps.rateLimit, idempotency(deps.idempotency), costCeiling(deps.ceilings), async (ctx) => {
    const body = ctx.request.body;
    await serveQueued(ctx, deps.jobs, 'images', async (call) => answer(await generateImages(deps, call, body)));
  });
  // The form is read once, before the idempotency check, which identifies it by its fields and
  // the SHA-256 of each file (a retry's multipart boundary differs, its content does not).
  const forms = new WeakMap<GatewayContext, MultipartForm>();
  const formOf = async (ctx: GatewayContext): Promise<MultipartForm> => {
    const known = forms.get(ctx);
    if (known) return known;
    const form = await readEditForm(ctx, deps.config.limits.uploadFileBytes);
    // A form's `max_cost` is the gateway's, like a JSON body's (cleared by costCeiling).
    const own = form.fields.max_cost;
    if (own !== undefined) {
      deps.ceilings.set(ctx.state.requestId, parseUsdAmount(own, 'max_cost'));
      delete form.fields.max_cost;
    }
    forms.set(ctx, form);
    return form;
  };
  const editContent = async (ctx: GatewayContext) => {
    const form = await formOf(ctx);
    return { fields: form.fields, files: form.files.map((f) => ({ field: f.field, filename: f.filename, sha256: createHash('sha256').update(f.data).digest('hex') })) };
  };
  router.post('/images/edits', auth, deps.rateLimit, idempotency(deps.idempotency, { content: editContent }), costCeiling(deps.ceilings), async (ctx) => {
    const form = await formOf(ctx);
    await serveQueued(ctx, deps.jobs, 'images', async (call) => answer(await editImages(deps, call, form)));
  });
  return router;
}
