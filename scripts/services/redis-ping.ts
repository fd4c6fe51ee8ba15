import net from 'node:net';

/**
 * Sends one inline `PING` over a plain socket and resolves true on `+PONG`. A raw socket keeps
 * the readiness check free of client-library reconnect logic.
 */
export function redisPing(host: string, port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host, port });
    let reply = '';
    const finish = (error?: Error, ok = false): void => {
      socket.destroy();
      if (error) reject(error);
      else resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(new Error('redis PING timed out')));
    socket.once('error', (error) => finish(error));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) finish(undefined, reply.startsWith('+PONG'));
    });
  });
}
