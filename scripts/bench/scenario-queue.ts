import { Agent, request } from 'node:http';
import { loadConfig } from '../../src/platform/config/index.js';
import { createLogger } from '../../src/platform/log/index.js';
import { createLocalImages } from '../../src/providers/index.js';
import { type ImageGenerateJob, JobQueue } from '../../src/queue/index.js';
import { NO_EQUIVALENT, TARGETS } from './bench-targets.js';
import { chatHeaders } from './chat-requests.js';
import { sleep, summarize, type LatencySummary } from './latency-stats.js';
import type { Measurement } from './report-rows.js';
import { measured, withCpu, type ScenarioContext, type ScenarioOutput } from './scenario-context.js';

const SMALL = '256x256';
const LARGE = '2048x2048';
/** A 2048x2048 instant image is noise (~4.2 MB of PNG); anything smaller means the wrong image. */
const LARGE_MIN_BYTES = 4_000_000;

interface ImageCall {
  status: number;
  ms: number;
  /** Decoded bytes of the first image. */
  bytes: number;
}

/** One `POST /v1/images/generations` of the instant model, timed to the last byte. */
function generate(agent: Agent, ctx: ScenarioContext, size: string): Promise<ImageCall> {
  const body = JSON.stringify({ model: 'local/instant-image', prompt: 'bench', size });
  return new Promise<ImageCall>((resolve, reject) => {
    const started = performance.now();
    const req = request(`${ctx.stack.webUrl}/v1/images/generations`, { method: 'POST', agent, headers: chatHeaders(ctx.stack.account.key) }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (chunk: Buffer) => parts.push(chunk));
      res.once('end', () => {
        const ms = performance.now() - started;
        let bytes = 0;
        try {
          const parsed = JSON.parse(Buffer.concat(parts).toString('utf8')) as { data?: Array<{ b64_json?: string }> };
          bytes = Buffer.byteLength(parsed.data?.[0]?.b64_json ?? '', 'base64');
        } catch {
          // counted as a failure below through bytes = 0
        }
        resolve({ status: res.statusCode ?? 0, ms, bytes });
      });
      res.once('error', reject);
    });
    req.once('error', reject);
    req.end(body);
  });
}

/** The local instant provider called in this process: the queue path's floor. */
async function directCalls(size: string, count: number): Promise<LatencySummary> {
  const images = createLocalImages();
  const call = () => images.generate({ upstreamModel: 'instant', prompt: 'bench', n: 1, size, signal: new AbortController().signal });
  await call();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await call();
    samples.push(performance.now() - started);
  }
  return summarize(samples);
}

let queueOnlyRounds = 0;

/**
 * The queue mechanics alone: JobQueue.run from this process (payload store, BullMQ enqueue,
 * worker, completion event, result read) with no HTTP, admission or ledger in the way.
 */
async function queueOnly(ctx: ScenarioContext, count: number): Promise<LatencySummary> {
  const { stack } = ctx;
  // A repeated measurement (see cpu-steal) must not reuse the job ids of the one before.
  const round = (queueOnlyRounds += 1);
  const config = loadConfig({ NODE_ENV: 'production', REDIS_URL: stack.redisUrl, MONGODB_URI: stack.mongoUri, REDIS_PREFIX: stack.redisPrefix, ADMIN_TOKEN: stack.adminToken });
  const jobs = await JobQueue.open(config, createLogger('silent'));
  const job = (id: string): ImageGenerateJob => ({
    op: 'generate',
    requestId: id,
    accountId: stack.account.accountId,
    keyId: stack.account.keyId,
    model: { id: 'local/instant-image', kind: 'image', provider: 'local', upstreamModel: 'instant', pricing: { image: '0.0001' } },
    deadline: Date.now() + 30_000,
    params: { prompt: 'bench', n: 1, size: SMALL },
  });
  try {
    const samples: number[] = [];
    for (let i = -20; i < count; i++) {
      const id = `bench-queue-${stack.runId}-${round}-${i}`;
      const started = performance.now();
      await jobs.run('images', job(id), [], { timeoutMs: 30_000 });
      if (i >= 0) samples.push(performance.now() - started);
      await jobs.discard(id, []);
    }
    return summarize(samples);
  } finally {
    await jobs.close();
  }
}

async function sequential(ctx: ScenarioContext, size: string, count: number, warmup: number): Promise<{ latency: LatencySummary; failed: number; bytes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < warmup; i++) await generate(agent, ctx, size);
    const samples: number[] = [];
    let failed = 0;
    let bytes = 0;
    for (let i = 0; i < count; i++) {
      const call = await generate(agent, ctx, size);
      samples.push(call.ms);
      bytes = call.bytes;
      if (call.status !== 200 || call.bytes === 0) failed += 1;
    }
    return { latency: summarize(samples), failed, bytes };
  } finally {
    agent.destroy();
  }
}

/** Closed loop with `concurrency` requests in flight for `seconds`: completed jobs per second. */
async function jobsPerSecond(ctx: ScenarioContext, concurrency: number, seconds: number): Promise<{ jobsPerSecond: number; completed: number; failed: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const deadline = performance.now() + seconds * 1000;
  let completed = 0;
  let failed = 0;
  const lane = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const call = await generate(agent, ctx, SMALL).catch(() => undefined);
      if (call?.status === 200 && call.bytes > 0) completed += 1;
      else failed += 1;
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, lane));
  } finally {
    agent.destroy();
  }
  return { jobsPerSecond: Math.round(completed / ((performance.now() - started) / 1000)), completed, failed };
}

/**
 * The queue path with one worker process and the local instant model: round trip through web,
 * Redis queue and worker versus the provider called directly; small jobs per second; and a
 * 4 MB image end to end (DESIGN §9: p50 ≤ +5 ms, p99 ≤ +20 ms, ≥ 1,000 jobs/s, 4 MB ≤ 100 ms).
 */
export async function queueScenario(ctx: ScenarioContext): Promise<ScenarioOutput> {
  const { queueSamples, jobsSeconds, jobsConcurrency, bigImageSamples } = ctx.plan;
  const { value: trip, steal: tripSteal } = await measured(ctx, 'queue round trip', async () => {
    const direct = await directCalls(SMALL, queueSamples);
    const queued = await withCpu(ctx, 'farebox queue round trip', () => sequential(ctx, SMALL, queueSamples, 20));
    const mechanics = await withCpu(ctx, 'JobQueue.run only', () => queueOnly(ctx, queueSamples));
    return { direct, queued, mechanics };
  });
  const { direct, queued, mechanics } = trip;
  ctx.log(`queue round trip: direct p50 ${direct.p50} ms, farebox p50 ${queued.latency.p50} p99 ${queued.latency.p99} ms (failed ${queued.failed}); JobQueue.run alone p50 ${mechanics.p50} p99 ${mechanics.p99} ms`);
  await jobsPerSecond(ctx, jobsConcurrency, 1);
  await sleep(500);
  const { value: jobs, steal: jobsSteal } = await measured(ctx, 'jobs/s', () => withCpu(ctx, `farebox jobs/s (${jobsConcurrency} in flight)`, () => jobsPerSecond(ctx, jobsConcurrency, jobsSeconds)));
  ctx.log(`jobs/s with one worker: ${jobs.jobsPerSecond} (failed ${jobs.failed})`);
  const { value: bigRun, steal: bigSteal } = await measured(ctx, '4 MB image', async () => {
    const bigDirect = await directCalls(LARGE, bigImageSamples);
    const big = await withCpu(ctx, 'farebox 4 MB image', () => sequential(ctx, LARGE, bigImageSamples, 2));
    return { bigDirect, big };
  });
  const { bigDirect, big } = bigRun;
  ctx.log(`4 MB image: ${big.bytes} bytes, p50 ${big.latency.p50} ms, max ${big.latency.max} ms (direct p50 ${bigDirect.p50} ms)`);
  const bigOk = big.failed === 0 && big.bytes >= LARGE_MIN_BYTES;
  const tripValid = queued.failed === 0 ? {} : { valid: false, note: `${queued.failed} image requests failed` };
  const none = { portkey: null, portkeyNote: NO_EQUIVALENT };
  const rows: Measurement[] = [
    { id: 'queue-p50', scenario: 'queue round trip p50 (vs direct)', unit: 'ms', floor: direct.p50, farebox: queued.latency.p50, ...none, target: TARGETS.queueP50, ...tripValid, steal: tripSteal },
    { id: 'queue-p99', scenario: 'queue round trip p99 (vs direct)', unit: 'ms', floor: direct.p99, farebox: queued.latency.p99, ...none, target: TARGETS.queueP99, ...tripValid, steal: tripSteal },
    { id: 'jobqueue-p50', scenario: 'JobQueue.run alone p50 (vs direct)', unit: 'ms', floor: direct.p50, farebox: mechanics.p50, ...none, steal: tripSteal },
    { id: 'jobqueue-p99', scenario: 'JobQueue.run alone p99 (vs direct)', unit: 'ms', floor: direct.p99, farebox: mechanics.p99, ...none, steal: tripSteal },
    { id: 'jobs-per-second', scenario: 'small jobs/s, one worker', unit: 'jobs/s', floor: null, farebox: jobs.jobsPerSecond, ...none, target: TARGETS.jobsPerSecond, ...(jobs.failed === 0 ? {} : { valid: false, note: `${jobs.failed} jobs failed` }), steal: jobsSteal },
    { id: 'big-image-p50', scenario: `4 MB image end to end p50 (${LARGE})`, unit: 'ms', floor: bigDirect.p50, farebox: big.latency.p50, ...none, target: TARGETS.bigImage, ...(bigOk ? {} : { valid: false, note: `${big.failed} failed; ${big.bytes} bytes` }), steal: bigSteal },
  ];
  return { rows, details: { small: SMALL, direct, queued, queueOnly: mechanics, jobs: { concurrency: jobsConcurrency, ...jobs }, big: { size: LARGE, direct: bigDirect, ...big } } };
}
