import { existsSync } from 'node:fs';
import path from 'node:path';
import type { BenchProcess, ProcessGroup } from './bench-processes.js';
import { waitHttpReady } from './bench-processes.js';
import { chatBody } from './chat-requests.js';

/** The published entry of `@portkey-ai/gateway` (its `bin`): `--port=N`, `--headless` (no UI). */
const ENTRY = 'node_modules/@portkey-ai/gateway/build/start-server.js';

/** The peer gateway in the run, relaying to the same mock upstream. */
export interface Peer {
  readonly name: 'portkey';
  readonly url: string;
  /** Headers of every chat call through it: which provider, where that provider is, its key. */
  readonly headers: Record<string, string>;
  readonly proc: BenchProcess;
}

/** How the peer is started. */
export interface PeerSetup {
  root: string;
  runtime: 'dist' | 'tsx';
  group: ProcessGroup;
  core: string;
  port: number;
  mockUrl: string;
  upstreamKey: string;
}

/** Portkey's request headers for an OpenAI-compatible upstream at `mockUrl`. */
export function portkeyHeaders(mockUrl: string, upstreamKey: string): Record<string, string> {
  return {
    authorization: `Bearer ${upstreamKey}`,
    'content-type': 'application/json',
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${mockUrl}/v1`,
  };
}

/** Sends one non-streamed chat call; resolves when the mock's completion came back through it. */
async function verify(url: string, headers: Record<string, string>): Promise<void> {
  const res = await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers, body: chatBody({ stream: false }), signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  if (res.status !== 200 || !text.includes('Hello from the bench upstream.')) throw new Error(`a chat call through it answered ${res.status}: ${text.slice(0, 300)}`);
}

/**
 * Starts Portkey's open-source gateway as published (plain Node, production mode, no UI),
 * preloaded with loopback-only since it listens on every interface otherwise, and checks that
 * a chat call through it returns the mock's completion. Resolves the peer, or why it is absent.
 */
export async function startPortkey(setup: PeerSetup): Promise<Peer | { failed: string }> {
  const { root, runtime, group, core, port, mockUrl, upstreamKey } = setup;
  if (!existsSync(path.join(root, ENTRY))) return { failed: `${ENTRY} is not installed` };
  const preload = runtime === 'dist' ? ['--import', './dist/scripts/bench/loopback-only.js'] : ['--import', 'tsx', '--import', './scripts/bench/loopback-only.ts'];
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, NODE_ENV: 'production' };
  const proc = group.spawn({ name: 'portkey', core, args: [...preload, ENTRY, `--port=${port}`, '--headless'], env, cwd: root });
  const url = `http://127.0.0.1:${port}`;
  const headers = portkeyHeaders(mockUrl, upstreamKey);
  try {
    await waitHttpReady(`${url}/`, proc, 30_000);
    await verify(url, headers);
    return { name: 'portkey', url, headers, proc };
  } catch (err) {
    await group.stop('portkey');
    return { failed: err instanceof Error ? err.message.split('\n')[0] ?? err.message : String(err) };
  }
}

/** The last error line in Portkey's log (its answers say only "Something went wrong"). */
export function lastErrorLine(peer: Peer): string | undefined {
  return peer.proc
    .tail()
    .split('\n')
    .reverse()
    .find((line) => /error/i.test(line) && !/^\s+at /.test(line))
    ?.trim();
}
