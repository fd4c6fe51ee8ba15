import { expect } from 'vitest';
import { waitFor } from '../../helpers/wait-for.js';
import type { AgentRun } from '../../helpers/agents/agent-install.js';
import { describeSeen, type AgentGateway, type SeenRequest } from './agent-gateway.js';

/** Requests the issue allows a "say hello" turn with an agent's default tools. */
export const MAX_REQUESTS_PER_TURN = 20;

/** Everything a failure message needs: the client's output and what the gateway answered. */
export function runReport(run: AgentRun, seen: readonly SeenRequest[]): string {
  return `exit ${run.code}\n--- stderr\n${run.stderr.slice(-3000)}\n--- stdout\n${run.stdout.slice(-3000)}\n--- gateway\n${describeSeen(seen)}`;
}

/**
 * Waits until the gateway has recorded at least `charged` charged requests on `endpoint` of
 * the account since `before` requests (records are written once each answer ends), then returns
 * this run's requests, or sooner once one was refused. On a time-out it returns what there is: the
 * assertions then say what is missing.
 */
export async function seenSince(gw: AgentGateway, before: number, endpoint: string, charged: number): Promise<SeenRequest[]> {
  const mine = async () => (await gw.seen()).slice(before);
  try {
    return await waitFor('the gateway to record the charged requests', async () => {
      const seen = await mine();
      const paid = seen.filter((r) => r.endpoint === endpoint && r.status === 200 && r.cost > 0n).length;
      // A refusal ends the wait: the client has given up on its turn.
      return paid >= charged || seen.some((r) => r.status >= 400) ? seen : undefined;
    }, { timeoutMs: 15_000, intervalMs: 250 });
  } catch {
    return mine();
  }
}

/**
 * The checks every agent turn must pass: the client exited 0, the gateway refused nothing,
 * charged at least `charged` requests on `endpoint`, and the turn stayed under the request cap.
 */
export function expectChargedTurn(run: AgentRun, seen: readonly SeenRequest[], endpoint: string, charged = 1): void {
  const report = runReport(run, seen);
  expect(seen.filter((r) => r.status >= 400), report).toEqual([]);
  expect(run.code, report).toBe(0);
  const paid = seen.filter((r) => r.endpoint === endpoint && r.status === 200 && r.cost > 0n);
  expect(paid.length, report).toBeGreaterThanOrEqual(charged);
  expect(seen.length, report).toBeLessThan(MAX_REQUESTS_PER_TURN);
}

/** Parses JSON lines, skipping any line that is not a JSON object (progress text, blank lines). */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text.split('\n').flatMap((line) => {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) return [];
    try {
      return [JSON.parse(trimmed) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}
