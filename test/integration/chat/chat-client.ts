import { adminClient, call, type JsonResponse } from '../../helpers/admin-client.js';
import { answeredDocuments } from '../../helpers/spec-recorder.js';

/** A funded account with one inference key. */
export interface FundedKey {
  accountId: string;
  keyId: string;
  raw: string;
}

/** Creates an account, tops it up with `usd` (0 = free tier) and mints a key. */
export async function fundedKey(url: string, usd: number | string, key: Record<string, unknown> = {}): Promise<FundedKey> {
  const admin = adminClient(url);
  const accountId = await admin.createAccount();
  if (Number(usd) > 0) {
    const res = await admin.topup(accountId, usd);
    if (res.status !== 201) throw new Error(`topup ${res.status}`);
  }
  const { keyId, raw } = await admin.mintKey(accountId, key);
  return { accountId, keyId, raw };
}

/** A non-streamed chat call. */
export function chat(url: string, raw: string, body: Record<string, unknown>): Promise<JsonResponse> {
  return call(url, 'POST', '/v1/chat/completions', { token: raw, body });
}

/** What a streamed call delivered. */
export interface StreamResult {
  status: number;
  headers: Headers;
  /** Parsed JSON events, in order ([DONE] excluded). */
  events: Array<Record<string, any>>;
  /** Whether `data: [DONE]` arrived, and as the last event. */
  done: boolean;
  /** Raw body (error bodies before the stream started are JSON). */
  text: string;
}

/** Joined `delta.content` of choice 0. */
export function streamedText(result: StreamResult): string {
  return result.events.map((e) => (e.choices?.[0]?.delta?.content as string | undefined) ?? '').join('');
}

/**
 * Streams a chat call and parses the SSE body; `abortAfter` disconnects after that many events,
 * `onFirstEvent` is called once the first event has arrived (the request was admitted).
 */
export async function streamChat(
  url: string,
  raw: string,
  body: Record<string, unknown>,
  options: { abortAfter?: number; onFirstEvent?: () => void } = {},
): Promise<StreamResult> {
  const controller = new AbortController();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${raw}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, stream: true }),
    signal: controller.signal,
  });
  const events: Array<Record<string, any>> = [];
  let text = '';
  let done = false;
  if (res.body === null) return { status: res.status, headers: res.headers, events, done, text };
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const piece of res.body) {
      buffer += decoder.decode(piece, { stream: true });
      let cut: number;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        text += `${frame}\n\n`;
        const data = frame.startsWith('data: ') ? frame.slice(6) : undefined;
        if (data === undefined) continue;
        if (done) throw new Error('event after [DONE]');
        if (data === '[DONE]') done = true;
        else {
          events.push(JSON.parse(data) as Record<string, any>);
          if (events.length === 1) options.onFirstEvent?.();
          answeredDocuments.push({ method: 'POST', path: '/v1/chat/completions', status: res.status, part: 'chunk', json: events.at(-1) });
        }
        if (options.abortAfter !== undefined && events.length >= options.abortAfter) {
          controller.abort();
          return { status: res.status, headers: res.headers, events, done, text };
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  }
  text += buffer;
  return { status: res.status, headers: res.headers, events, done, text };
}

/** Reads one ledger entry through the operator API (by request id). */
export async function ledgerEntry(url: string, accountId: string, requestId: string): Promise<Record<string, any> | undefined> {
  const admin = adminClient(url);
  let cursor: string | undefined;
  for (;;) {
    const res = await admin.call('GET', `/accounts/${accountId}/ledger?limit=200${cursor ? `&cursor=${cursor}` : ''}`);
    const entries = res.body.data as Array<Record<string, any>>;
    const found = entries.find((e) => e.id === requestId);
    if (found !== undefined) return found;
    cursor = res.body.next_cursor as string | undefined;
    if (!cursor) return undefined;
  }
}

/** Current balance of an account, USD. */
export async function balanceOf(url: string, accountId: string): Promise<number> {
  const res = await adminClient(url).call('GET', `/accounts/${accountId}`);
  return res.body.data.balance_usd as number;
}
