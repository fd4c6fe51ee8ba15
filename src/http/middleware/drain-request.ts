import type { IncomingMessage } from 'node:http';

/** Longest the rest of a refused request is read before answering anyway. */
const DRAIN_TIMEOUT_MS = 30_000;

/**
 * Reads and discards the rest of a refused request, up to `limit` more bytes, so the answer
 * goes out after the client has finished sending: answering mid-upload and then closing makes
 * the client's socket see a reset instead of the 413. Resolves whether the body was read to
 * its end; past the bound or the time limit the caller closes the connection instead.
 */
export async function drainRemainder(req: IncomingMessage, limit: number): Promise<boolean> {
  if (req.readableEnded || req.destroyed) return req.readableEnded;
  return new Promise<boolean>((resolve) => {
    let seen = 0;
    const finish = (ended: boolean) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onFail).off('close', onFail);
      if (!ended) req.pause();
      resolve(ended);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limit) finish(false);
    };
    const onEnd = () => finish(true);
    const onFail = () => finish(false);
    const timer = setTimeout(onFail, DRAIN_TIMEOUT_MS);
    req.on('data', onData).on('end', onEnd).on('error', onFail).on('close', onFail);
    req.unpipe();
    req.resume();
  });
}

