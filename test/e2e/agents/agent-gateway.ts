import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { adminClient } from '../../helpers/admin-client.js';
import { spawnWeb, type WebProcess } from '../../helpers/spawn-web.js';
import { startTestGateway, testEnv, type TestGateway } from '../../helpers/test-gateway.js';
import { runAgent, type AgentRun } from '../../helpers/agents/agent-install.js';
import type { AgentCommand } from '../../helpers/agents/agent-configs.js';

/** What the gateway recorded of one request an agent sent. */
export interface SeenRequest {
  endpoint: string;
  model: string | null;
  status: number;
  error_code: string | null;
  /** Nano-USD charged. */
  cost: bigint;
}

/** A real web process over fresh stores, with one funded key for the agents. */
export interface AgentGateway {
  /** e.g. `http://127.0.0.1:1234` (no `/v1`). */
  url: string;
  apiKey: string;
  web: WebProcess;
  /** Runs a client command in a throwaway folder (made by `make`), then removes the folder. */
  run(make: (dir: string) => Promise<AgentCommand>, timeoutMs?: number): Promise<AgentRun>;
  /** Every request of the key's account the gateway recorded, oldest first. */
  seen(): Promise<SeenRequest[]>;
  /** The account's ledger charges, in nano-USD. */
  charges(): Promise<bigint[]>;
  close(): Promise<void>;
}

/** The credit an agent test starts with: enough for its turns, small enough to cap a runaway loop. */
const CREDIT_USD = 1;

/**
 * Starts the stack the other end-to-end tests use: the in-process gateway plays the release
 * step (indexes, seed catalog with `local/echo`) and the operator; the agents talk to a real
 * spawned web process.
 */
export async function startAgentGateway(): Promise<AgentGateway> {
  const env = testEnv({ LOG_LEVEL: 'warn' });
  let setup: TestGateway | undefined;
  let web: WebProcess | undefined;
  try {
    setup = await startTestGateway({ env });
    const admin = adminClient(setup.url);
    const accountId = await admin.createAccount('agents');
    await admin.topup(accountId, CREDIT_USD);
    const apiKey = (await admin.mintKey(accountId)).raw;
    web = await spawnWeb(env);
    const c = setup.deps.c;
    const gateway = setup;
    const process = web;
    return {
      url: web.url,
      apiKey,
      web,
      async run(make, timeoutMs = 180_000) {
        const dir = await mkdtemp(join(tmpdir(), 'fbx-agent-'));
        try {
          const cmd = await make(dir);
          return await runAgent(cmd.command, cmd.args, { env: cmd.env, cwd: cmd.cwd, timeoutMs });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      },
      async seen() {
        const records = await c.requestRecords.find({ account_id: accountId }).sort({ created_at: 1 }).toArray();
        return records.map((r) => ({ endpoint: r.endpoint, model: r.model, status: r.status, error_code: r.error_code, cost: r.cost }));
      },
      async charges() {
        const entries = await c.ledger.find({ account_id: accountId, kind: 'charge' }).toArray();
        return entries.map((e) => e.cost);
      },
      async close() {
        await process.stop();
        await gateway.close();
      },
    };
  } catch (err) {
    await web?.stop();
    await setup?.close();
    throw err;
  }
}

/** A one-line account of what the gateway saw, for failure messages. */
export function describeSeen(seen: readonly SeenRequest[]): string {
  if (seen.length === 0) return 'the gateway recorded no request';
  return seen.map((r) => `${r.endpoint} ${r.model ?? '-'} → ${r.status}${r.error_code ? ` ${r.error_code}` : ''}`).join('; ');
}
