import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SCRIPT = join(ROOT, 'scripts/services/install-system-packages.sh');
const isDebianRoot = process.getuid?.() === 0 && (await readFile('/etc/debian_version', 'utf8').then(() => true, () => false));

interface Run {
  status: number;
  out: string;
  aptCalls: string[];
}

/**
 * A PATH of its own: node, env, id, uname and a recording apt-get (unless left out), and no
 * redis-server, wine or docker, so the script sees a machine that lacks them.
 */
async function fakeBin(dir: string, withApt: boolean): Promise<string> {
  const bin = join(dir, 'bin');
  await mkdir(bin);
  await symlink(process.execPath, join(bin, 'node'));
  for (const tool of ['env', 'id', 'uname']) await symlink(`/usr/bin/${tool}`, join(bin, tool));
  if (withApt) {
    await writeFile(join(bin, 'apt-get'), `#!/bin/bash\necho "$*" >> ${join(dir, 'apt.log')}\n`);
    await chmod(join(bin, 'apt-get'), 0o755);
  }
  return bin;
}

async function run(dir: string, env: Record<string, string>, withApt = true): Promise<Run> {
  const bin = await fakeBin(dir, withApt);
  const result = await new Promise<{ status: number; out: string }>((resolve) => {
    execFile('/bin/bash', [SCRIPT], { cwd: ROOT, env: { PATH: bin, HOME: dir, ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const status = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ status, out: `${stdout}${stderr}` });
    });
  });
  const aptCalls = await readFile(join(dir, 'apt.log'), 'utf8').then((t) => t.trim().split('\n'), () => []);
  return { ...result, aptCalls };
}

describe('install-system-packages.sh (prestart / pretest)', () => {
  let dir: string;
  let docker: Server;
  let socket: string;
  const fresh = async () => mkdtemp(join(dir, 'case-'));

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fbx-syspkg-'));
    socket = join(dir, 'docker.sock');
    // A stand-in Docker engine: answers the ping the service resolver sends.
    docker = createServer((req, res) => {
      res.statusCode = req.url === '/_ping' ? 200 : 404;
      res.end('OK');
    }).listen(socket);
    await once(docker, 'listening');
  });
  afterAll(async () => {
    docker?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('does nothing when both store URLs are given', async () => {
    const r = await run(await fresh(), { REDIS_URL: 'redis://127.0.0.1:1', MONGODB_URI: 'mongodb://127.0.0.1:1' });
    expect(r.status).toBe(0);
    expect(r.aptCalls).toEqual([]);
  });

  it('installs nothing when a Docker engine answers, although redis-server and wine are missing', async () => {
    const r = await run(await fresh(), { DOCKER_HOST: `unix://${socket}` });
    expect(r.status, r.out).toBe(0);
    expect(r.out).toMatch(/Docker engine answers/);
    expect(r.aptCalls).toEqual([]);
  });

  it.skipIf(!isDebianRoot)('on Debian without Docker, apt-installs what is missing', async () => {
    const r = await run(await fresh(), { DOCKER_HOST: `unix://${join(dir, 'nothing.sock')}` });
    expect(r.status, r.out).toBe(0);
    expect(r.aptCalls).toEqual(['update', 'install -y redis-server wine wine64']);
  });

  it.skipIf(!isDebianRoot)('installs only Wine when REDIS_URL is given, and skips Docker with FAREBOX_SERVICES=local', async () => {
    const r = await run(await fresh(), { REDIS_URL: 'redis://127.0.0.1:1', DOCKER_HOST: `unix://${socket}`, FAREBOX_SERVICES: 'local' });
    expect(r.status, r.out).toBe(0);
    expect(r.aptCalls).toEqual(['update', 'install -y wine wine64']);
  });

  it('without apt-get or Docker, says what to install and fails', async () => {
    const r = await run(await fresh(), { DOCKER_HOST: `unix://${join(dir, 'nothing.sock')}` }, false);
    expect(r.status).toBe(1);
    expect(r.out).toMatch(/missing: redis-server wine wineserver/);
    expect(r.out).toMatch(/Docker engine/);
    expect(r.out).toMatch(/REDIS_URL and MONGODB_URI/);
  });
});
