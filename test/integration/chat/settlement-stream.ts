import type { TestGateway } from '../../helpers/test-gateway.js';

/**
 * A streamed chat call read event by event, so a test can stop reading, hang up, or look at
 * the gateway's state (the hold) while the stream is open.
 */
export interface OpenStream {
  status: number;
  requestId: string;
  /** The JSON error body when the call failed before the stream started. */
  errorBody?: { error: { code: string } };
  /** The next parsed event; `'[DONE]'`; or undefined at the end of the body. */
  next(): Promise<Record<string, any> | '[DONE]' | undefined>;
  /** Every remaining event, `[DONE]` excluded; `done` says whether it arrived. */
  rest(): Promise<{ events: Array<Record<string, any>>; done: boolean }>;
  /** Hangs up, as a client that leaves. */
  abort(): void;
}

/** Opens a streamed chat completion with usage reporting on. */
export async function openStream(url: string, raw: string, body: Record<string, unknown>): Promise<OpenStream> {
  const controller = new AbortController();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    signal: controller.signal,
  });
  const requestId = res.headers.get('x-service-request-id') ?? '';
  if (res.status !== 200) {
    return { status: res.status, requestId, errorBody: (await res.json()) as { error: { code: string } }, next: async () => undefined, rest: async () => ({ events: [], done: false }), abort: () => undefined };
  }
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const next = async (): Promise<Record<string, any> | '[DONE]' | undefined> => {
    for (;;) {
      const cut = buffer.indexOf('\n\n');
      if (cut >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        const data = frame.split('\n').find((line) => line.startsWith('data: '))?.slice(6);
        if (data === undefined) continue;
        return data === '[DONE]' ? '[DONE]' : (JSON.parse(data) as Record<string, any>);
      }
      const step = await reader.read();
      if (step.done) return undefined;
      buffer += decoder.decode(step.value, { stream: true });
    }
  };
  const rest = async (): Promise<{ events: Array<Record<string, any>>; done: boolean }> => {
    const events: Array<Record<string, any>> = [];
    for (let event = await next(); event !== undefined; event = await next()) {
      if (event === '[DONE]') return { events, done: true };
      events.push(event);
    }
    return { events, done: false };
  };
  return { status: res.status, requestId, next, rest, abort: () => controller.abort() };
}

/**
 * The hold of an in-flight request, nano-USD (undefined once it is freed): its own hold in
 * Redis, or under leased admission what it holds of its process's slice.
 */
export async function holdOf(gw: TestGateway, accountId: string, requestId: string): Promise<bigint | undefined> {
  const admission = gw.deps.admission;
  if ('runningHold' in admission) return admission.runningHold(requestId);
  const info = await gw.deps.redis.hget(admission.keyNames.holdInfo(accountId), requestId);
  return info === null ? undefined : BigInt(info.split(':')[0] ?? '');
}

/** What the account has on hold in total, nano-USD: in Redis, less what this process's slices hold unused. */
export async function heldTotal(gw: TestGateway, accountId: string): Promise<bigint> {
  const admission = gw.deps.admission;
  const inRedis = BigInt((await gw.deps.redis.get(admission.keyNames.heldTotal(accountId))) ?? '0');
  if (!('slices' in admission)) return inRedis;
  return admission.slices().reduce((sum, slice) => (slice.owner.accountId === accountId ? sum - slice.room : sum), inRedis);
}

/** The ledger charge of a request, waiting for it to land (a stream whose client left settles later). */
export async function chargeOf(gw: TestGateway, requestId: string, waitMs = 10_000): Promise<{ cost: bigint; charged: bigint; units: Record<string, number>; overLimit: bigint } | undefined> {
  const until = Date.now() + waitMs;
  do {
    const entry = await gw.deps.c.ledger.findOne({ _id: requestId });
    if (entry !== null) return { cost: entry.cost, charged: entry.charged, units: entry.units ?? {}, overLimit: entry.over_limit ?? 0n };
    await new Promise((resolve) => setTimeout(resolve, 50));
  } while (Date.now() < until);
  return undefined;
}
