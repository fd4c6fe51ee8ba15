import { connect, createServer, type Socket } from 'node:net';

/** A TCP proxy that can leave one request unanswered on a connection that stays open. */
export interface SilencingProxy {
  readonly port: number;
  /**
   * The next request whose bytes contain `marker` is never forwarded, and its connection
   * neither answers nor closes again: what a client sees on a connection to a server whose
   * host died or dropped off the network. Every other connection works as before.
   */
  silenceNext(marker: string): void;
  close(): Promise<void>;
}

/** Starts a proxy on a free loopback port in front of `target`. */
export async function silencingProxy(target: { host: string; port: number }): Promise<SilencingProxy> {
  const sockets = new Set<Socket>();
  let marker: string | undefined;
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined).on('close', () => sockets.delete(s));
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    const forward = (chunk: Buffer) => {
      if (marker === undefined || !chunk.includes(marker)) return void upstream.write(chunk);
      marker = undefined;
      // From now on this client talks to no one, and nothing closes its connection.
      client.off('data', forward).on('data', () => undefined);
      upstream.removeAllListeners('close').destroy();
    };
    client.on('data', forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    silenceNext(text) {
      marker = text;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
