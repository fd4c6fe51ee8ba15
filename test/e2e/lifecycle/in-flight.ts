/** How a request in flight at shutdown ended, as its client saw it. */
export type ClientEnd = 'complete' | 'cut' | `status ${number}`;

/** A streamed chat completion held open by the stalling upstream. */
export interface OpenStream {
  /** The gateway's request id (the ledger entry's id once charged). */
  requestId: string;
  /** Resolves when the stream ends: `complete` only if `[DONE]` arrived. */
  ended: Promise<ClientEnd>;
  /** Everything received so far. */
  text(): string;
}

/** Opens a stream and resolves once its first content has arrived (it is really in flight). */
export async function openStream(webUrl: string, rawKey: string, model = 'stall/chat'): Promise<OpenStream> {
  const res = await fetch(`${webUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, max_tokens: 4_000, messages: [{ role: 'user', content: 'keep going' }] }),
  });
  if (res.status !== 200 || !res.body) throw new Error(`stream refused: ${res.status} ${await res.text()}`);
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes('more ')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before any content: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  const ended = (async (): Promise<ClientEnd> => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return seen.includes('data: [DONE]') ? 'complete' : 'cut';
        seen = (seen + decoder.decode(value, { stream: true })).slice(-200_000);
      }
    } catch {
      return 'cut';
    }
  })();
  return { requestId: res.headers.get('x-service-request-id') ?? '', ended, text: () => seen };
}

/** Sends an image generation (a queued job) and resolves with how it ended for the client. */
export async function sendImage(webUrl: string, rawKey: string): Promise<ClientEnd> {
  try {
    const res = await fetch(`${webUrl}/v1/images/generations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rawKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'stall/image', prompt: 'a lighthouse', n: 1 }),
    });
    await res.arrayBuffer();
    return res.status === 200 ? 'complete' : `status ${res.status}`;
  } catch {
    return 'cut';
  }
}
