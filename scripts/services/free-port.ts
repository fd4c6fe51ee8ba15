import net from 'node:net';

/** Resolves the port the OS hands out for a listen on port 0 (free at the time of the call). */
export function findFreePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new Error('no port assigned'))));
    });
  });
}

/** True when nothing listens on `port` and we may bind it. */
export function isPortFree(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

/** `preferred` when it is free, otherwise a free port; no preference means any free port. */
export async function choosePort(preferred?: number, host = '127.0.0.1'): Promise<number> {
  if (preferred !== undefined && (await isPortFree(preferred, host))) return preferred;
  return findFreePort(host);
}
