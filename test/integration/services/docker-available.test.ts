import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dockerAvailable, dockerEndpoint } from '../../../scripts/services/docker-available.js';

const servers: http.Server[] = [];
const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(dirs.splice(0).map((dir) => fs.rm(dir, { recursive: true, force: true })));
});

async function fakeEngine(handler: http.RequestListener): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'farebox-docker-'));
  dirs.push(dir);
  const socketPath = path.join(dir, 'docker.sock');
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return socketPath;
}

describe('dockerEndpoint', () => {
  it('reads DOCKER_HOST like the Docker CLI and defaults to the local socket', () => {
    expect(dockerEndpoint({})).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(dockerEndpoint({ DOCKER_HOST: 'unix:///run/user/1000/docker.sock' })).toEqual({ socketPath: '/run/user/1000/docker.sock' });
    expect(dockerEndpoint({ DOCKER_HOST: 'tcp://10.0.0.5:2376' })).toEqual({ host: '10.0.0.5', port: 2376 });
    expect(dockerEndpoint({ DOCKER_HOST: 'ssh://me@box' })).toBeUndefined();
  });
});

describe('dockerAvailable', () => {
  it('is true when the engine answers GET /_ping with 200', async () => {
    let pinged = '';
    const socketPath = await fakeEngine((request, response) => {
      pinged = `${request.method ?? ''} ${request.url ?? ''}`;
      response.end('OK');
    });
    expect(await dockerAvailable({ DOCKER_HOST: `unix://${socketPath}` })).toBe(true);
    expect(pinged).toBe('GET /_ping');
  });

  it('is false when the engine answers with an error status', async () => {
    const socketPath = await fakeEngine((_request, response) => {
      response.statusCode = 500;
      response.end();
    });
    expect(await dockerAvailable({ DOCKER_HOST: `unix://${socketPath}` })).toBe(false);
  });

  it('is false when the engine never answers', async () => {
    const socketPath = await fakeEngine(() => undefined);
    expect(await dockerAvailable({ DOCKER_HOST: `unix://${socketPath}` }, 200)).toBe(false);
  });

  it('is false when no socket exists', async () => {
    expect(await dockerAvailable({ DOCKER_HOST: 'unix:///nonexistent/docker.sock' })).toBe(false);
  });
});
