import { execFile, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** `docker compose` (v2 plugin) or `docker-compose` (v1), whichever this machine has. */
function composeCommand(): string[] | undefined {
  const candidates = [['docker', 'compose'], ['docker-compose']];
  return candidates.find(([cmd, ...args]) => spawnSync(cmd ?? '', [...args, 'version'], { stdio: 'ignore' }).status === 0);
}

function composeConfig(compose: string[], env: Record<string, string>): { status: number | null; out: string } {
  const [cmd = '', ...args] = compose;
  const result = spawnSync(cmd, [...args, '-f', 'docker-compose.yml', 'config'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    encoding: 'utf8',
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

const compose = composeCommand();

describe('docker-compose.yml', () => {
  it.skipIf(compose === undefined)('is valid for the compose CLI, builds the image and binds nothing from the host', () => {
    const { status, out } = composeConfig(compose ?? [], { ADMIN_TOKEN: 'compose-check-admin-token' });
    expect(status, out).toBe(0);
    for (const service of ['mongo', 'redis', 'release', 'web', 'worker']) expect(out).toMatch(new RegExp(`^  ${service}:`, 'm'));
    expect(out).toMatch(/service_completed_successfully/);
    expect(out).toMatch(/replSet/);
    expect(out).not.toMatch(/type: bind/);
    expect(out).not.toMatch(new RegExp(`${ROOT.replace(/\/$/, '')}:`));
    // Charges spooled during a MongoDB outage live in a named volume, not the read-only image.
    expect(out).toMatch(/CHARGE_SPOOL_DIR: \/var\/lib\/farebox\/spool/);
    expect(out).toMatch(/charge-spool:\/var\/lib\/farebox\/spool/);
  });

  it.skipIf(compose === undefined)('refuses to start without ADMIN_TOKEN', () => {
    const { status, out } = composeConfig(compose ?? [], {});
    expect(status).not.toBe(0);
    expect(out).toMatch(/ADMIN_TOKEN/);
  });
});

describe('Dockerfile', () => {
  const dockerfile = readFileSync(`${ROOT}Dockerfile`, 'utf8');
  const ignored = readFileSync(`${ROOT}.dockerignore`, 'utf8').split('\n').map((l) => l.trim());

  it('builds with dev dependencies and ships production dependencies only, as a non-root user', () => {
    const stages = dockerfile.split(/^FROM /m).slice(1);
    expect(stages).toHaveLength(2);
    const [build = '', runtime = ''] = stages;
    expect(build).toMatch(/npm ci --no-audit/);
    expect(build).toMatch(/npm run build/);
    expect(runtime).toMatch(/npm ci --omit=dev/);
    expect(runtime).toMatch(/COPY --from=build \/app\/dist/);
    expect(runtime).toMatch(/^USER (?!root)\w+/m);
    expect(runtime).toMatch(/^HEALTHCHECK .*\n?.*\/healthz/m);
    expect(dockerfile).toMatch(/^ARG BASE_IMAGE=node:24-bookworm-slim$/m);
  });

  it('the healthcheck probe exits 0 on a 200 from /healthz and 1 otherwise', async () => {
    const probe = /"-e", "(.*)"\]/.exec(dockerfile)?.[1]?.replace(/\\"/g, '"');
    expect(probe).toBeDefined();
    const run = (port: number) => new Promise<number | null>((resolve) => {
      execFile(process.execPath, ['-e', probe ?? ''], { env: { PORT: String(port) }, timeout: 10_000 }, (err) => resolve(err ? (typeof err.code === 'number' ? err.code : null) : 0));
    });
    let status = 200;
    const server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? status : 404;
      res.end();
    }).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      expect(await run(port)).toBe(0);
      status = 503;
      expect(await run(port)).toBe(1);
    } finally {
      server.close();
    }
    expect(await run(port)).toBe(1);
  });

  it('keeps local state, build output and secrets out of the build context', () => {
    for (const entry of ['node_modules', '.farebox', 'dist', '.git', 'coverage', '.env']) expect(ignored).toContain(entry);
  });
});
