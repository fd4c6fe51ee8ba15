import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { captureOutput } from './capture-output.js';
import { waitFor } from './wait-for.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A real `web` process (src/http/server.ts) started for a test. */
export interface WebProcess {
  url: string;
  pid: number;
  /** Starts reading a held stdout (see SpawnWebOptions.holdStdout); a no-op otherwise. */
  readStdout(): void;
  /** Everything the process wrote to stdout and stderr (for failure messages). */
  output: () => string;
  /** Stops the process (SIGTERM, then SIGKILL if it does not exit in time). */
  stop(): Promise<void>;
  /** `kill -9`: the process dies at once, with whatever it was doing. */
  kill(): Promise<void>;
}

/** A TCP port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

async function waitReady(url: string, child: ChildProcess, output: () => string, timeoutMs: number): Promise<void> {
  await waitFor('the web process to be ready', async () => {
    if (child.exitCode !== null) throw new Error(`web process exited early (${child.exitCode}):\n${output()}`);
    // Not listening yet counts as not ready.
    return (await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200;
  }, { timeoutMs, intervalMs: 100, detail: output });
}

/** How {@link spawnWeb} treats the process's output. */
export interface SpawnWebOptions {
  /** Leave stdout unread (its pipe fills up) until `readStdout()`; stderr is still read. */
  holdStdout?: boolean;
}

/**
 * Starts `node --import tsx src/http/server.ts` with the given environment (NODE_ENV, REDIS_URL,
 * MONGODB_URI, MONGODB_DB, REDIS_PREFIX, ADMIN_TOKEN; PORT is picked here) and waits until
 * `/readyz` answers 200. The database should be prepared (indexes, catalog) beforehand.
 */
export async function spawnWeb(env: Record<string, string>, timeoutMs = 60_000, options: SpawnWebOptions = {}): Promise<WebProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/http/server.ts'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const held = options.holdStdout === true ? child.stdout : null;
  // A held stdout is left out of the capture: nothing reads it until readStdout().
  const output = captureOutput(held === null ? child : ({ stderr: child.stderr } as ChildProcess), 200_000);
  const readStdout = (): void => {
    held?.on('data', (chunk: Buffer) => captured.push(chunk.toString('utf8')));
  };
  const captured: string[] = [];
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await waitReady(url, child, output, timeoutMs);
  } catch (err) {
    await stop();
    throw err;
  }
  const kill = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  };
  const all = (): string => `${output()}${captured.join('').slice(-200_000)}`;
  return { url, pid: child.pid ?? -1, output: all, readStdout, stop, kill };
}
