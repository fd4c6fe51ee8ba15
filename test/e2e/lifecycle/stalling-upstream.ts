import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** An upstream whose work never finishes: streams that trickle forever, images never drawn. */
export interface StallingUpstream {
  url: string;
  /** Image requests received so far (each is a job a worker is running). */
  imageRequests(): number;
  close(): Promise<void>;
}

/** Words a "finite" stream sends before it ends (about 4 s). */
export const FINITE_WORDS = 20;

const frame = (delta: Record<string, unknown>): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-stall', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'stall', choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] })}\n\n`;

/**
 * Starts an OpenAI-compatible fake on 127.0.0.1 for shutdown tests: `…/chat/completions`
 * streams a word every 200 ms and never ends (upstream model "finite": ends after
 * {@link FINITE_WORDS} words with usage); `…/images/generations` never answers. Work in
 * flight through it is, by construction, still in flight when a process is told to stop.
 */
export async function startStallingUpstream(): Promise<StallingUpstream> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let images = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.url?.endsWith('/images/generations')) {
        images += 1;
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(frame({ role: 'assistant', content: '' }));
      // Model "finite": FINITE_WORDS words, then usage and [DONE]; any other model: forever.
      const finite = body.includes('"model":"finite"');
      let words = 0;
      const timer = setInterval(() => {
        res.write(frame({ content: 'more ' }));
        words += 1;
        if (!finite || words < FINITE_WORDS) return;
        clearInterval(timer);
        res.write(`data: ${JSON.stringify({ id: 'chatcmpl-stall', object: 'chat.completion.chunk', created: 1_700_000_000, model: 'finite', choices: [], usage: { prompt_tokens: 5, completion_tokens: words, total_tokens: 5 + words } })}\n\n`);
        res.end('data: [DONE]\n\n');
      }, 200);
      timers.add(timer);
      res.on('close', () => {
        clearInterval(timer);
        timers.delete(timer);
      });
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    imageRequests: () => images,
    async close() {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
