import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '../../fixtures/documents/self-signed-cert.js';
import { freePort } from '../../helpers/spawn-web.js';
import { waitRedisPong } from '../../helpers/wait-redis.js';

/** A redis-server of the test's own that speaks only TLS, with a certificate made for it. */
export interface PrivateTlsRedis {
  /** `rediss://127.0.0.1:<port>` */
  readonly url: string;
  stop(): Promise<void>;
}

/**
 * Starts a redis-server with TLS only (plain port off, client certificates not asked for), using
 * a self-signed certificate for localhost/127.0.0.1, as managed Redis services without a public
 * CA present themselves.
 */
export async function privateTlsRedis(): Promise<PrivateTlsRedis> {
  const dir = await mkdtemp(join(tmpdir(), 'fbx-tls-redis-'));
  const { cert, key } = createSelfSignedCertificate(['localhost'], ['127.0.0.1']);
  await writeFile(join(dir, 'cert.pem'), cert);
  await writeFile(join(dir, 'key.pem'), key, { mode: 0o600 });
  const port = await freePort();
  const args = ['--port', '0', '--tls-port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  args.push('--tls-cert-file', join(dir, 'cert.pem'), '--tls-key-file', join(dir, 'key.pem'), '--tls-auth-clients', 'no');
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const url = `rediss://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await waitRedisPong(url, { child, client: { tls: { rejectUnauthorized: false } } });
  } catch (err) {
    await stop();
    throw err;
  }
  return { url, stop };
}
