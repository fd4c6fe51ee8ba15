import type { Logger } from 'pino';
import type { Redis } from '../platform/redis/index.js';
import { classifyError, GatewayError, serializeError } from '../platform/errors/index.js';
import type { QueueName } from './queue-names.js';

/** Where an async job stands, as `GET /v1/jobs/{id}` names it. */
export type AsyncJobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** The answer the synchronous call would have given: its status and body. */
export interface AsyncAnswer {
  readonly status: number;
  /** JSON, as every queue route answers. */
  readonly body: string | Buffer;
}

/** An async job as its owner reads it. */
export interface AsyncJobView {
  readonly id: string;
  readonly queue: QueueName;
  /** Unix seconds at acceptance. */
  readonly created: number;
  readonly state: AsyncJobState;
  /** Once finished: the answer, exactly as the synchronous call would have sent it. */
  readonly answer?: AsyncAnswer;
}

/** Who owns a job and where it runs. */
export interface AsyncJobRef {
  readonly id: string;
  readonly accountId: string;
  readonly queue: QueueName;
}

/** The run of an accepted job: it calls `queued` once its job is in the queue, then settles as a synchronous call does. */
export type AsyncRun = (signal: AbortSignal, queued: () => void) => Promise<AsyncAnswer>;

interface StoredMeta {
  account_id: string;
  queue: QueueName;
  created: number;
  /** Set once finished. */
  status?: number;
}

/** Whether a running job has started on a worker (BullMQ's `active`). */
export type JobStarted = (queue: QueueName, id: string) => Promise<boolean>;

/**
 * Jobs answered `202 Accepted` (`Prefer: respond-async`): the web that accepted one runs it to
 * the end exactly as it runs a synchronous call (the same hold, settlement, charge and receipt,
 * all on this process's admission ticket), only the answer goes to Redis instead of the socket,
 * where its owner reads it for `ttlMs` after it finished. Kept in one hash per job,
 * `<prefix>:async:{<id>}` (`meta`, and `body` once done), so a cluster keeps it in one slot.
 * A web that stops drains its running jobs first; one it has to cut is released uncharged and
 * recorded as a 503 to retry.
 */
export class AsyncJobs {
  private readonly running = new Map<Promise<void>, AbortController>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
    private readonly started: JobStarted,
    private readonly log: Logger,
  ) {}

  private key(id: string): string {
    return `${this.prefix}:async:{${id}}`;
  }

  /**
   * Starts `run` and resolves once its job is queued and recorded; a refusal before that
   * (validation, limits, balance) rejects, so the client gets it as the synchronous call's error.
   */
  async accept(ref: AsyncJobRef, run: AsyncRun): Promise<AsyncJobView> {
    const controller = new AbortController();
    let queued: () => void = () => undefined;
    const isQueued = new Promise<void>((resolve) => (queued = resolve));
    const done = run(controller.signal, queued);
    await Promise.race([isQueued, done]);
    const meta: StoredMeta = { account_id: ref.accountId, queue: ref.queue, created: Math.floor(Date.now() / 1000) };
    try {
      await this.store(ref.id, meta);
    } catch (err) {
      // Nobody could read its answer: the job is abandoned, its hold released, nothing charged.
      controller.abort(err);
      await done.catch(() => undefined);
      throw err;
    }
    const tracked: Promise<void> = done
      .then((answer) => this.finish(ref.id, meta, answer), (err: unknown) => this.finish(ref.id, meta, failedAnswer(err)))
      .catch((err: unknown) => this.log.error({ err, request_id: ref.id }, 'async job answer not stored'))
      .finally(() => this.running.delete(tracked));
    this.running.set(tracked, controller);
    return { id: ref.id, queue: ref.queue, created: meta.created, state: 'queued' };
  }

  private finish(id: string, meta: StoredMeta, answer: AsyncAnswer): Promise<void> {
    return this.store(id, { ...meta, status: answer.status }, answer.body);
  }

  /** Writes the job's hash; its time to live starts again, so a finished answer stays `ttlMs`. */
  private async store(id: string, meta: StoredMeta, body?: string | Buffer): Promise<void> {
    const key = this.key(id);
    const fields: Array<string | Buffer> = body === undefined ? ['meta', JSON.stringify(meta)] : ['meta', JSON.stringify(meta), 'body', body];
    const replies = await this.redis.multi().hset(key, ...fields).pexpire(key, this.ttlMs).exec();
    const failed = replies?.find(([err]) => err !== null);
    if (failed?.[0]) throw failed[0];
  }

  /** The job as `accountId` may see it; undefined when unknown, expired or another account's. */
  async read(id: string, accountId: string): Promise<AsyncJobView | undefined> {
    const [metaBytes, body] = await this.redis.hmgetBuffer(this.key(id), 'meta', 'body');
    if (metaBytes === null || metaBytes === undefined) return undefined;
    const meta = JSON.parse(metaBytes.toString('utf8')) as StoredMeta;
    if (meta.account_id !== accountId) return undefined;
    const base = { id, queue: meta.queue, created: meta.created };
    if (meta.status !== undefined && body !== null && body !== undefined) {
      return { ...base, state: meta.status < 400 ? 'succeeded' : 'failed', answer: { status: meta.status, body } };
    }
    return { ...base, state: (await this.started(meta.queue, id)) ? 'running' : 'queued' };
  }

  /** Waits up to `ms` for running jobs; those still running are cut (released, recorded as 503). */
  async drain(ms: number): Promise<number> {
    const all = [...this.running.keys()];
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled(all), new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
    clearTimeout(timer);
    const cut = [...this.running.entries()];
    for (const [, controller] of cut) controller.abort(new GatewayError('service_unavailable', 'The service restarted before the job finished; retry the request.', { retryAfterSeconds: 1 }));
    await Promise.allSettled(cut.map(([tracked]) => tracked));
    return cut.length;
  }
}

/** A failed run as the synchronous call would have answered it. */
function failedAnswer(thrown: unknown): AsyncAnswer {
  const err = classifyError(thrown);
  return { status: err.status, body: JSON.stringify(serializeError(err)) };
}
