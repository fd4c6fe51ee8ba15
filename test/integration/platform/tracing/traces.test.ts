import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClient, call } from '../../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../../helpers/test-gateway.js';
import { waitFor } from '../../../helpers/wait-for.js';
import { spawnWorker, type WorkerProcess } from '../../../e2e/images/spawn-worker.js';
import { startFakeOpenAi, type FakeUpstream } from '../../../fixtures/upstreams/fake-openai.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../../fixtures/tracing/otlp-receiver.js';
import { fundedKey, type FundedKey } from '../../chat/chat-client.js';

const SERVER = 2;
const CLIENT = 3;
const CONSUMER = 5;
const ERROR = 2;

let otlp: OtlpReceiver;
let a: FakeUpstream;
let b: FakeUpstream;
let dir: string;
let gateway: TestGateway;
let web: WebProcess;
let worker: WorkerProcess;
let key: FundedKey;

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  a = await startFakeOpenAi({ apiKey: 'sk-fake-trace-a-0001', reply: 'Answer from A.', usage: { prompt: 11, completion: 7 } });
  b = await startFakeOpenAi({ apiKey: 'sk-fake-trace-b-0002', reply: 'Answer from B.', usage: { prompt: 11, completion: 9 } });
  dir = await mkdtemp(join(tmpdir(), 'fbx-traces-'));
  const providersFile = join(dir, 'providers.json');
  await writeFile(providersFile, JSON.stringify([
    { id: 'local', kind: 'local' },
    { id: 'prov-a', kind: 'openai', base_url: `${a.url}/v1`, api_key_env: 'FAKE_A_KEY' },
    { id: 'prov-b', kind: 'openai', base_url: `${b.url}/v1`, api_key_env: 'FAKE_B_KEY' },
  ]));
  const base = { LOG_LEVEL: 'warn', PROVIDERS_FILE: providersFile, FAKE_A_KEY: 'sk-fake-trace-a-0001', FAKE_B_KEY: 'sk-fake-trace-b-0002' };
  const env = testEnv(base);
  // The in-process gateway prepares the database and seeds; only the spawned processes trace.
  gateway = await startTestGateway({ env });
  key = await fundedKey(gateway.url, 10);
  const route = (provider: string) => ({ provider, upstream_model: `${provider}-model` });
  const put = await adminClient(gateway.url).call('PUT', '/models/route/failover', {
    name: 'failover', kind: 'chat', routes: [route('prov-a'), route('prov-b')], pricing: { prompt: '0.000001', completion: '0.000002' }, context_length: 100_000, max_output_tokens: 100,
  });
  expect(put.status).toBe(200);
  const traced = { ...env, OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' };
  worker = await spawnWorker(traced, 240_000);
  web = await spawnWeb(traced, 240_000);
}, 600_000);

afterAll(async () => {
  await Promise.all([web?.stop(), worker?.stop()]);
  await gateway?.close();
  await Promise.all([otlp?.close(), a?.close(), b?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A client's own trace context: the gateway's spans must join it. */
function clientTrace(): { traceId: string; parentId: string; header: string } {
  const traceId = randomBytes(16).toString('hex');
  const parentId = randomBytes(8).toString('hex');
  return { traceId, parentId, header: `00-${traceId}-${parentId}-01` };
}

/** The spans of one trace once its server span (which ends last on the web) and `more` have arrived. */
async function traceOf(traceId: string, ready: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
  return waitFor(`spans of trace ${traceId}`, () => {
    const spans = otlp.spans.filter((s) => s.traceId === traceId);
    return spans.some((s) => s.kind === SERVER) && ready(spans) && spans;
  }, { timeoutMs: 60_000 });
}

/** Span ids above a span, nearest first. */
function ancestors(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  const out: string[] = [];
  for (let parent = span.parentSpanId; parent !== undefined; parent = byId.get(parent)?.parentSpanId) out.push(parent);
  return out;
}

function one(spans: ReceivedSpan[], name: string): ReceivedSpan {
  const found = spans.filter((s) => s.name === name);
  expect(found.map((s) => s.name)).toEqual([name]);
  return found[0] as ReceivedSpan;
}

describe('traces over OTLP/HTTP', () => {
  it('a chat request: a server span under the client traceparent with GenAI attributes and cost, children for admission, the upstream and the ledger commit; no content', async () => {
    const t = clientTrace();
    const prompt = `secret prompt ${randomBytes(6).toString('hex')}`;
    const res = await call(web.url, 'POST', '/v1/chat/completions', { token: key.raw, headers: { traceparent: t.header }, body: { model: 'local/echo', messages: [{ role: 'user', content: prompt }] } });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-service-request-id');
    const spans = await traceOf(t.traceId, (s) => s.some((x) => x.name === 'ledger.commit'));
    const server = one(spans, 'chat local/echo');
    expect(server.kind).toBe(SERVER);
    expect(server.parentSpanId).toBe(t.parentId);
    expect(server.resource).toMatchObject({ 'service.name': 'farebox', 'farebox.process': 'web' });
    expect(server.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'local/echo',
      'gen_ai.response.model': 'local/echo',
      'gen_ai.usage.input_tokens': res.body.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': res.body.usage.completion_tokens,
      'gen_ai.response.finish_reasons': ['stop'],
      'farebox.cost_usd': res.body.usage.cost,
      'farebox.request_id': requestId,
      'http.response.status_code': 200,
    });
    for (const name of ['admission', 'upstream local']) expect(one(spans, name).parentSpanId, name).toBe(server.spanId);
    // The charge settles while the upstream call winds up, so its span sits under that one.
    expect(ancestors(spans, one(spans, 'ledger.commit'))).toContain(server.spanId);
    expect(one(spans, 'upstream local').kind).toBe(CLIENT);
    expect(otlp.raw.some((text) => text.includes(prompt))).toBe(false);
    expect(otlp.raw.some((text) => text.includes(String(res.body.choices[0].message.content)))).toBe(false);
    expect([...otlp.contentTypes]).toEqual(['application/json']);
  }, 120_000);

  it('a failover: one span per upstream attempt, the failed ones marked, and the answering upstream got the trace context', async () => {
    a.setScenario({ type: 'error', status: 503, body: '{"error":{"message":"overloaded"}}' });
    const before = b.requests.length;
    const t = clientTrace();
    const res = await call(web.url, 'POST', '/v1/chat/completions', { token: key.raw, headers: { traceparent: t.header }, body: { model: 'route/failover', messages: [{ role: 'user', content: 'hi' }] } });
    a.setScenario({ type: 'normal' });
    expect(res.status).toBe(200);
    expect(res.body.provider).toBe('prov-b');
    const spans = await traceOf(t.traceId, (s) => s.some((x) => x.name === 'ledger.commit'));
    const server = one(spans, 'chat route/failover');
    // A quick 503 is tried once more on the same route before the next one.
    const failed = spans.filter((s) => s.name === 'upstream prov-a');
    const answered = one(spans, 'upstream prov-b');
    expect(failed).toHaveLength(2);
    for (const span of [...failed, answered]) expect(span.parentSpanId).toBe(server.spanId);
    for (const span of failed) expect(span.statusCode).toBe(ERROR);
    expect(answered.statusCode).not.toBe(ERROR);
    expect(failed.map((s) => s.attributes['farebox.attempt']).sort()).toEqual([1, 2]);
    expect(answered.attributes['farebox.attempt']).toBe(3);
    expect(server.attributes).toMatchObject({ 'gen_ai.response.model': 'route/failover', 'gen_ai.provider.name': 'prov-b', 'gen_ai.usage.output_tokens': 9 });
    const upstream = b.requests.slice(before).at(-1);
    expect(upstream?.headers.traceparent).toBe(`00-${t.traceId}-${answered.spanId}-01`);
  }, 120_000);

  it('an image job: one trace across web, queue, worker and upstream', async () => {
    const t = clientTrace();
    const res = await call(web.url, 'POST', '/v1/images/generations', { token: key.raw, headers: { traceparent: t.header }, body: { model: 'local/instant-image', prompt: 'a red square' } });
    expect(res.status).toBe(200);
    const spans = await traceOf(t.traceId, (s) => s.some((x) => x.name === 'process images') && s.some((x) => x.name === 'ledger.commit'));
    const server = one(spans, 'generate_content local/instant-image');
    expect(server.attributes).toMatchObject({ 'farebox.cost_usd': res.body.usage.cost, 'gen_ai.response.model': 'local/instant-image' });
    const job = one(spans, 'process images');
    expect(job.kind).toBe(CONSUMER);
    expect(job.resource['farebox.process']).toBe('worker');
    // The job's parent is a span of the web's request: the context crossed the queue in the job.
    const webIds = new Set(spans.filter((s) => s.resource['farebox.process'] === 'web').map((s) => s.spanId));
    expect(webIds.has(job.parentSpanId ?? '')).toBe(true);
    const upstream = one(spans, 'upstream local');
    expect(upstream.parentSpanId).toBe(job.spanId);
    expect(upstream.resource['farebox.process']).toBe('worker');
    const commit = one(spans, 'ledger.commit');
    expect(commit.resource['farebox.process']).toBe('web');
    expect(ancestors(spans, commit)).toContain(server.spanId);
    expect(ancestors(spans, upstream)).toContain(server.spanId);
  }, 120_000);
});
