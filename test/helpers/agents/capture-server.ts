import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerAnthropic, answerChatCompletions, answerResponses } from './capture-answers.js';

/** One request a client sent, as a fixture keeps it. */
export interface CapturedRequest {
  method: string;
  /** Path with its query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Lower-case header names; credentials and cookies read `[redacted]`. */
  headers: Record<string, string>;
  /** The parsed JSON body; the raw text when it is not JSON; null when empty. */
  body: unknown;
}

/** A loopback server that records what a client sends and answers just enough to end its turn. */
export interface CaptureServer {
  /** e.g. `http://127.0.0.1:1234` (no trailing slash, no `/v1`). */
  url: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

/** Header names whose values are credentials (or may carry them). */
const SECRET_HEADER = /authorization|api-key|cookie|token|secret|password/i;

/** Replaces credential header values, keeping the rest as sent. */
export function redactHeaders(headers: IncomingMessage['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = SECRET_HEADER.test(name) ? '[redacted]' : Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** Replaces every occurrence of the given secrets in a JSON value's strings. */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return secrets.reduce((s, secret) => (secret ? s.replaceAll(secret, '[redacted]') : s), value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, secrets)]));
  }
  return value;
}

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function notFound(res: ServerResponse, path: string): void {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: { type: 'not_found_error', message: `nothing at ${path}` } }));
}

/** Routes a recorded request to the vendor answer its path asks for. */
function answer(req: CapturedRequest, res: ServerResponse): void {
  const path = req.path.split('?')[0] ?? '';
  if (req.method === 'GET' && path.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ object: 'list', data: [], models: [] }));
    return;
  }
  if (req.method !== 'POST') return notFound(res, req.path);
  if (path.endsWith('/messages/count_tokens')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ input_tokens: 42 }));
    return;
  }
  if (path.endsWith('/messages')) return answerAnthropic(req.body, res);
  if (path.endsWith('/responses')) return answerResponses(req.body, res);
  if (path.endsWith('/chat/completions')) return answerChatCompletions(req.body, res);
  notFound(res, req.path);
}

/**
 * Starts the capture server on an ephemeral loopback port. `secrets` (the key the client was
 * given) are replaced by `[redacted]` wherever they appear in a recorded body.
 */
export async function startCaptureServer(secrets: readonly string[] = []): Promise<CaptureServer> {
  const requests: CapturedRequest[] = [];
  const server: Server = createServer((req, res) => {
    readBody(req)
      .then((body) => {
        const captured: CapturedRequest = {
          method: req.method ?? 'GET',
          path: req.url ?? '/',
          headers: redactHeaders(req.headers),
          body: redactValue(body, secrets),
        };
        requests.push(captured);
        answer({ ...captured, body }, res);
      })
      .catch(() => {
        res.writeHead(400);
        res.end();
      });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
