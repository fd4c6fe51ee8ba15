import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CapturedRequest } from './capture-server.js';

/** The folder that holds one sub-folder of recorded requests per client. */
export const AGENT_FIXTURES_DIR = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));

/** What a real client sent on its first turn, as test/fixtures/agents/<client>/<name>.json keeps it. */
export interface AgentFixture {
  /** `claude-code`, `codex`, `opencode` or `openai-agents`. */
  client: string;
  /** The case, e.g. `print-stream-json`, `exec-json`, `anthropic`, `responses-stream`. */
  name: string;
  /** The npm package whose version is given. */
  package: string;
  version: string;
  recorded_at: string;
  /** What was set besides the base URL and key. */
  setup: string;
  /** How the client exited against the capture server (0: it finished its turn). */
  exit_code: number | null;
  requests: CapturedRequest[];
}

/** One recorded request with the fixture it came from. */
export interface AgentFixtureRequest {
  fixture: AgentFixture;
  /** Position in the fixture's requests. */
  index: number;
  request: CapturedRequest;
  /** The path without its query, e.g. `/v1/messages`. */
  route: string;
}

/** Every fixture, sorted by client and name. */
export function loadAgentFixtures(): AgentFixture[] {
  const fixtures: AgentFixture[] = [];
  for (const client of readdirSync(AGENT_FIXTURES_DIR, { withFileTypes: true })) {
    if (!client.isDirectory()) continue;
    for (const file of readdirSync(join(AGENT_FIXTURES_DIR, client.name)).filter((f) => f.endsWith('.json')).sort()) {
      fixtures.push(JSON.parse(readFileSync(join(AGENT_FIXTURES_DIR, client.name, file), 'utf8')) as AgentFixture);
    }
  }
  return fixtures.sort((a, b) => `${a.client}/${a.name}`.localeCompare(`${b.client}/${b.name}`));
}

/**
 * Every recorded POST whose route ends with one of `routes` (e.g. `/messages`,
 * `/messages/count_tokens`, `/responses`, `/chat/completions`), for replaying through the gateway.
 */
export function agentFixtureRequests(routes: readonly string[]): AgentFixtureRequest[] {
  return loadAgentFixtures().flatMap((fixture) =>
    fixture.requests.flatMap((request, index) => {
      const route = request.path.split('?')[0] ?? request.path;
      return request.method === 'POST' && routes.some((r) => route.endsWith(r)) ? [{ fixture, index, request, route }] : [];
    }),
  );
}

/** Headers to replay a recorded request with: the recorded ones minus transport and credentials, plus `auth`. */
export function replayHeaders(request: CapturedRequest, auth: Record<string, string>): Record<string, string> {
  const drop = new Set(['host', 'content-length', 'connection', 'accept-encoding', 'transfer-encoding']);
  const kept = Object.entries(request.headers).filter(([name, value]) => !drop.has(name) && value !== '[redacted]');
  return { ...Object.fromEntries(kept), ...auth };
}
