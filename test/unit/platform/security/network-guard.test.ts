import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LOOPBACK_GUARD_OPTIONS } from '../../../setup/block-network.js';
import { isLoopbackHost } from '../../../setup/loopback-guard.mjs';

/** The code of the error that ended a fetch (undici wraps the socket's error as `cause`). */
async function failureCode(url: string): Promise<unknown> {
  try {
    await fetch(url);
  } catch (err) {
    return (err as { cause?: { code?: unknown } }).cause?.code;
  }
  return 'connected';
}

describe('outbound network in tests', () => {
  it('recognises loopback hosts only', () => {
    for (const host of ['127.0.0.1', '127.8.9.1', '::1', '[::1]', 'localhost', undefined]) expect(isLoopbackHost(host), String(host)).toBe(true);
    for (const host of ['10.0.0.1', '93.184.216.34', 'example.com', '::ffff:10.0.0.1', '2001:db8::1']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('refuses a non-loopback host before any packet leaves', async () => {
    expect(await failureCode('http://93.184.216.34/')).toBe('ENETUNREACH');
    expect(await failureCode('https://example.com/')).toBe('ENETUNREACH');
  });

  it('checks the answers of a custom resolver too', async () => {
    const socket = connect({ host: 'pinned.example.test', port: 9, lookup: (_host, _options, callback) => callback(null, '10.1.2.3', 4) });
    const [error] = (await once(socket, 'error')) as [NodeJS.ErrnoException];
    expect(error.code).toBe('ENETUNREACH');
  });

  it('lets loopback through', async () => {
    const server = createServer((_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('ok');
    } finally {
      server.close();
    }
  });

  it('is loaded into spawned processes through NODE_OPTIONS', async () => {
    const script = "fetch('http://93.184.216.34/').then(() => console.log('connected'), (e) => console.log(e.cause?.code))";
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: LOOPBACK_GUARD_OPTIONS } });
    expect(stdout.trim()).toBe('ENETUNREACH');
  });
});
