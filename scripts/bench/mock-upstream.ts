import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/**
 * A fast OpenAI-compatible upstream for the benchmark, run as its own process:
 * `mock-upstream <port>`, listening on 127.0.0.1 only.
 *
 * `POST /v1/chat/completions` answers a fixed completion with usage. With `"stream":true` it
 * sends an SSE stream whose shape comes from a directive in the request text,
 * `bench:chunks=<n>:gap=<ms>[:hold]`: n content chunks `gap` ms apart (0 = all at once), then
 * a usage chunk and `[DONE]`. With `hold` the stream stays open after the first chunk, sending
 * a chunk every `gap` ms, until `POST /control/release` (or two minutes, so nothing hangs).
 *
 * Under `/fail/<kind>/` every call fails the way a vendor does, for the failover rows: `429`,
 * `500`, `503`, `529` and `401` answer that status with an error body, `reset` destroys the
 * connection before any byte, and `stall` never answers.
 *
 * `POST /v1/embeddings` answers one fixed vector per input (`dimensions` long, default 1536)
 * with usage, in OpenAI's shape; answers are cached by input count and length.
 */

const MAX_HOLD_MS = 120_000;
const CREATED = Math.floor(Date.now() / 1000);
const USAGE = { prompt_tokens: 12, completion_tokens: 8, total_tokens: 20 };

const COMPLETION = Buffer.from(
  JSON.stringify({
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: CREATED,
    model: 'bench-fast',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hello from the bench upstream.' }, finish_reason: 'stop' }],
    usage: USAGE,
  }),
);

function frame(payload: unknown): string {
  return `data: ${JSON.stringify(payload)}\n\n`;
}

function chunkFrame(delta: Record<string, string>, finish: string | null): string {
  return frame({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-fast', choices: [{ index: 0, delta, finish_reason: finish }] });
}

const FIRST = chunkFrame({ role: 'assistant', content: 'tok ' }, null);
const MIDDLE = chunkFrame({ content: 'tok ' }, null);
const LAST = chunkFrame({ content: 'end' }, 'stop');
const TAIL =
  frame({ id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: CREATED, model: 'bench-fast', choices: [], usage: USAGE }) + 'data: [DONE]\n\n';

interface StreamPlan {
  chunks: number;
  gapMs: number;
  hold: boolean;
}

function planOf(body: string): StreamPlan {
  const match = /bench:chunks=(\d+):gap=(\d+)(:hold)?/.exec(body);
  return { chunks: Math.max(1, Number(match?.[1] ?? 3)), gapMs: Number(match?.[2] ?? 0), hold: match?.[3] !== undefined };
}

/** TCP connections accepted so far (keep-alive reuse shows as few per request). */
let connectionsAccepted = 0;

/** Streams waiting for the release signal, by their finish function. */
const held = new Set<() => void>();

function streamReply(res: ServerResponse, plan: StreamPlan): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(FIRST);
  let sent = 1;
  let timer: NodeJS.Timeout | undefined;
  let cap: NodeJS.Timeout | undefined;
  const finish = (): void => {
    clearInterval(timer);
    clearTimeout(cap);
    held.delete(finish);
    if (!res.writableEnded) res.end(LAST + TAIL);
  };
  res.once('close', () => {
    clearInterval(timer);
    clearTimeout(cap);
    held.delete(finish);
  });
  if (plan.hold) {
    held.add(finish);
    cap = setTimeout(finish, MAX_HOLD_MS);
    if (plan.gapMs > 0) timer = setInterval(() => res.write(MIDDLE), plan.gapMs);
    return;
  }
  if (plan.gapMs === 0) {
    while (sent < plan.chunks - 1) {
      res.write(MIDDLE);
      sent += 1;
    }
    finish();
    return;
  }
  timer = setInterval(() => {
    if (sent >= plan.chunks - 1) return finish();
    res.write(MIDDLE);
    sent += 1;
  }, plan.gapMs);
}

/** Embeddings answers by `count:dimensions`: the bench sends the same shape over and over. */
const embeddingAnswers = new Map<string, Buffer>();

function embeddingsReply(res: ServerResponse, body: string): void {
  let parsed: { input?: unknown; dimensions?: unknown };
  try {
    parsed = JSON.parse(body) as { input?: unknown; dimensions?: unknown };
  } catch {
    res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
    return;
  }
  const count = Array.isArray(parsed.input) ? parsed.input.length : 1;
  const dimensions = typeof parsed.dimensions === 'number' ? Math.min(4096, parsed.dimensions) : 1536;
  const cacheKey = `${count}:${dimensions}`;
  let answer = embeddingAnswers.get(cacheKey);
  if (answer === undefined) {
    const vector = Array.from({ length: dimensions }, (_, i) => Math.round(Math.sin(i + 1) * 1e7) / 1e9);
    const data = Array.from({ length: count }, (_, index) => ({ object: 'embedding', index, embedding: vector }));
    answer = Buffer.from(JSON.stringify({ object: 'list', data, model: 'bench-embed', usage: { prompt_tokens: 4 * count, total_tokens: 4 * count } }));
    embeddingAnswers.set(cacheKey, answer);
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer);
}

const FAILURE_BODIES: Record<string, string> = {
  '401': '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
  '429': '{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}',
};

/** Fails a call under `/fail/<kind>/`; false when the path asks for no failure. */
function failed(req: IncomingMessage, res: ServerResponse): boolean {
  const kind = /^\/fail\/([a-z0-9]+)\//.exec(req.url ?? '')?.[1];
  if (kind === undefined) return false;
  if (kind === 'reset') req.socket.destroy();
  else if (kind !== 'stall') res.writeHead(Number(kind) || 500, { 'content-type': 'application/json' }).end(FAILURE_BODIES[kind] ?? '{"error":{"message":"upstream failure"}}');
  return true;
}

function handle(req: IncomingMessage, res: ServerResponse, body: string): void {
  if (failed(req, res)) return;
  if (req.method === 'GET' && req.url === '/health') {
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if (req.method === 'GET' && req.url === '/control/stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ connections: connectionsAccepted }));
    return;
  }
  if (req.method === 'POST' && req.url === '/control/release') {
    const count = held.size;
    for (const finish of [...held]) finish();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ released: count }));
    return;
  }
  if (req.method === 'POST' && req.url?.endsWith('/embeddings')) {
    embeddingsReply(res, body);
    return;
  }
  if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
    return;
  }
  if (/"stream"\s*:\s*true/.test(body)) {
    streamReply(res, planOf(body));
    return;
  }
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': COMPLETION.length }).end(COMPLETION);
}

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) throw new Error('usage: mock-upstream <port>');

const server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (chunk: Buffer) => parts.push(chunk));
  req.on('end', () => handle(req, res, Buffer.concat(parts).toString('utf8')));
});
server.headersTimeout = 70_000;
server.on('connection', () => (connectionsAccepted += 1));
// A backlog as deep as the web's: with Node's 511, a burst of new connections from a relay
// under load has some dropped, and each waits out a 1 s SYN retry that no relay caused.
server.listen({ port, host: '127.0.0.1', backlog: 4_096 });

const stop = (): void => {
  for (const finish of [...held]) finish();
  server.close(() => process.exit(0));
  server.closeAllConnections();
  setTimeout(() => process.exit(0), 2_000).unref();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
