import { textPdf } from '../../fixtures/documents/test-pdfs.js';
import { call } from '../../helpers/admin-client.js';
import { streamChat } from '../../integration/chat/chat-client.js';

/** One request of the load and how it ended. */
export interface Outcome {
  kind: 'chat' | 'stream' | 'image' | 'ocr';
  accountId: string;
  status: number;
  retryAfter: string | null;
  startedAt: number;
  endedAt: number;
  requestId: string | undefined;
  /** The `usage.cost` the client was shown, nano-USD; undefined when it saw none. */
  cost: bigint | undefined;
}

/** A funded key of the load. */
export interface LoadKey {
  accountId: string;
  raw: string;
}

/** How long a probe keeps asking after a fault before it reports no recovery. */
const PROBE_MS = 45_000;

/** Longer than the job timeout (60 s), so a 504 is still told apart from a hang. */
const HANG_MS = 70_000;

const nano = (usd: unknown): bigint | undefined => (typeof usd === 'number' ? BigInt(Math.round(usd * 1e9)) : undefined);
const KINDS: Array<Outcome['kind']> = ['chat', 'chat', 'chat', 'chat', 'stream', 'stream', 'image', 'image', 'ocr', 'chat'];

async function one(kind: Outcome['kind'], url: string, raw: string, n: number, pdf: string): Promise<Omit<Outcome, 'kind' | 'accountId' | 'startedAt' | 'endedAt'>> {
  const messages = [{ role: 'user', content: `load ${n}` }];
  if (kind === 'stream') {
    const r = await streamChat(url, raw, { model: 'local/echo', messages, stream_options: { include_usage: true } });
    const usage = r.events.findLast((e) => e.usage)?.usage as { cost?: number } | undefined;
    return { status: r.status, retryAfter: r.headers.get('retry-after'), requestId: r.headers.get('x-request-id') ?? undefined, cost: nano(usage?.cost) };
  }
  const [path, body] =
    kind === 'chat'
      ? ['/v1/chat/completions', { model: 'local/echo', messages }]
      : kind === 'image'
        ? ['/v1/images/generations', { model: 'local/canvas-image', prompt: `tile ${n}`, size: '64x64' }]
        : ['/v1/ocr', { model: 'local/reader', document: { type: 'document_url', document_url: pdf } }];
  const r = await call(url, 'POST', path, { token: raw, body });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), requestId: r.headers.get('x-request-id') ?? undefined, cost: r.status === 200 ? nano(r.body?.usage?.cost) : undefined };
}

/**
 * Runs `clients` loops of chat, streamed chat, image and OCR requests (local models) against
 * the webs in turn, over the keys, until `until()` says stop. Network failures count as
 * status 0.
 */
export async function runLoad(webs: readonly string[], keys: readonly LoadKey[], clients: number, until: () => boolean): Promise<Outcome[]> {
  const pdf = `data:application/pdf;base64,${(await textPdf([['Scale-out manifest']])).toString('base64')}`;
  const outcomes: Outcome[] = [];
  let n = 0;
  const loop = async (c: number): Promise<void> => {
    while (!until()) {
      const i = n++;
      const kind = KINDS[(i + c) % KINDS.length] as Outcome['kind'];
      const key = keys[i % keys.length] as LoadKey;
      const startedAt = Date.now();
      const failed = { retryAfter: null, requestId: undefined, cost: undefined };
      // A request that takes longer than any store failover should is a hang: status -1.
      const hung = new Promise<typeof failed & { status: number }>((resolve) => setTimeout(() => resolve({ ...failed, status: -1 }), HANG_MS).unref());
      const sent = one(kind, webs[i % webs.length] as string, key.raw, i, pdf).catch(() => ({ ...failed, status: 0 }));
      const result = await Promise.race([sent, hung]);
      outcomes.push({ kind, accountId: key.accountId, startedAt, endedAt: Date.now(), ...result });
    }
  };
  await Promise.all(Array.from({ length: clients }, (_, c) => loop(c)));
  return outcomes;
}

/** How one fault looked to a client that kept asking right after it. */
export interface Recovery {
  fault: string;
  /** From the fault to the end of the first request (started after it) that succeeded, ms. */
  recoveryMs: number;
  /** Refusals (503) the probe met before that. */
  refused: number;
  /** Answers other than 200 and 503. */
  other: number[];
}

/**
 * Injects a fault and then sends one chat after another (alternating webs) until one succeeds:
 * the time to that first success is the fault's recovery time as a client sees it. The probe's
 * charges are outcomes of the load like any other.
 */
export async function probeRecovery(name: string, inject: () => Promise<void>, webs: readonly string[], key: LoadKey, outcomes: Outcome[]): Promise<Recovery> {
  const at = Date.now();
  await inject();
  const recovery: Recovery = { fault: name, recoveryMs: -1, refused: 0, other: [] };
  for (let i = 0; recovery.recoveryMs < 0 && Date.now() - at < PROBE_MS; i++) {
    const startedAt = Date.now();
    const result = await one('chat', webs[i % webs.length] as string, key.raw, -i, '').catch(() => ({ status: 0, retryAfter: null, requestId: undefined, cost: undefined }));
    outcomes.push({ kind: 'chat', accountId: key.accountId, startedAt, endedAt: Date.now(), ...result });
    if (result.status === 200) recovery.recoveryMs = Date.now() - at;
    else if (result.status === 503) recovery.refused++;
    else recovery.other.push(result.status);
    if (result.status !== 200) await new Promise((r) => setTimeout(r, 100));
  }
  return recovery;
}
