import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codexCommand } from '../../helpers/agents/agent-configs.js';
import { agentsMissing, agentVersion } from '../../helpers/agents/agent-install.js';
import { expectChargedTurn, jsonLines, runReport, seenSince } from './agent-assertions.js';
import { startAgentGateway, type AgentGateway } from './agent-gateway.js';

/**
 * The real Codex CLI (`codex exec`) against a spawned web process, through a custom model
 * provider on the Responses API in a fresh CODEX_HOME, with `local/echo` as its model.
 */
const missing = agentsMissing();
const title = missing ? `Codex CLI (skipped: ${missing})` : `Codex CLI ${agentVersion('@openai/codex')}`;

/** The event types of an `exec --json` run, in order. */
function eventTypes(stdout: string): string[] {
  return jsonLines(stdout).map((e) => String(e.type));
}

/** The item types `exec --json` reported as completed (agent_message, reasoning, tool calls…). */
function completedItems(stdout: string): string[] {
  return jsonLines(stdout).flatMap((e) => (e.type === 'item.completed' ? [String((e.item as { type?: unknown } | undefined)?.type)] : []));
}

describe.skipIf(missing !== undefined)(title, () => {
  let gw: AgentGateway;
  beforeAll(async () => {
    gw = await startAgentGateway();
  }, 180_000);
  afterAll(async () => gw?.close());

  it('exec "say hello": the turn ends in text, charged', async () => {
    const before = (await gw.seen()).length;
    const run = await gw.run((dir) => codexCommand(dir, { baseUrl: gw.url, key: gw.apiKey, prompt: 'say hello', json: false, model: 'local/echo' }));
    const seen = await seenSince(gw, before, '/v1/responses', 1);
    expectChargedTurn(run, seen, '/v1/responses');
    expect(run.stdout.trim(), runReport(run, seen)).not.toBe('');
  }, 240_000);

  it('exec --json "say hello": turn.completed with an agent message, no error event', async () => {
    const before = (await gw.seen()).length;
    const run = await gw.run((dir) => codexCommand(dir, { baseUrl: gw.url, key: gw.apiKey, prompt: 'say hello', json: true, model: 'local/echo' }));
    const seen = await seenSince(gw, before, '/v1/responses', 1);
    expectChargedTurn(run, seen, '/v1/responses');
    const types = eventTypes(run.stdout);
    expect(types, runReport(run, seen)).toContain('turn.completed');
    expect(types.filter((t) => t === 'turn.failed' || t === 'error'), runReport(run, seen)).toEqual([]);
    expect(completedItems(run.stdout), runReport(run, seen)).toContain('agent_message');
  }, 240_000);

  it('exec --json asking for the get_goal tool: the tool runs, then the turn ends in text', async () => {
    const before = (await gw.seen()).length;
    const run = await gw.run((dir) => codexCommand(dir, { baseUrl: gw.url, key: gw.apiKey, prompt: 'Use the get_goal tool', json: true, model: 'local/echo' }));
    const seen = await seenSince(gw, before, '/v1/responses', 2);
    // One request that calls the tool, one that answers after its result.
    expectChargedTurn(run, seen, '/v1/responses', 2);
    expect(eventTypes(run.stdout), runReport(run, seen)).toContain('turn.completed');
    expect(completedItems(run.stdout).at(-1), runReport(run, seen)).toBe('agent_message');
  }, 240_000);
});
