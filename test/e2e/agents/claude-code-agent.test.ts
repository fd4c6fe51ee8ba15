import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCommand } from '../../helpers/agents/agent-configs.js';
import { agentsMissing, agentVersion } from '../../helpers/agents/agent-install.js';
import { expectChargedTurn, jsonLines, runReport, seenSince } from './agent-assertions.js';
import { startAgentGateway, type AgentGateway } from './agent-gateway.js';

/**
 * The real Claude Code CLI in print mode against a spawned web process, pointed at it with
 * ANTHROPIC_BASE_URL and ANTHROPIC_API_KEY only, its main and background models set to `local/echo`.
 */
const missing = agentsMissing();
const title = missing ? `Claude Code (skipped: ${missing})` : `Claude Code ${agentVersion('@anthropic-ai/claude-code')}`;

/** The final `result` object of a print-mode run: the whole stdout (json) or its last event (stream-json). */
function resultOf(stdout: string): Record<string, unknown> | undefined {
  return jsonLines(stdout).filter((e) => e.type === 'result').at(-1);
}

/** The tool_use blocks of the assistant messages of a stream-json run. */
function toolUses(stdout: string): { name: unknown }[] {
  return jsonLines(stdout).flatMap((event) => {
    const content = event.type === 'assistant' ? (event.message as { content?: unknown } | undefined)?.content : undefined;
    return Array.isArray(content) ? content.filter((b: { type?: unknown }) => b.type === 'tool_use') : [];
  });
}

describe.skipIf(missing !== undefined)(title, () => {
  let gw: AgentGateway;
  beforeAll(async () => {
    gw = await startAgentGateway();
  }, 180_000);
  afterAll(async () => gw?.close());

  for (const output of ['json', 'stream-json'] as const) {
    it(`-p "say hello" --output-format ${output}: the turn ends in text, charged`, async () => {
      const before = (await gw.seen()).length;
      const run = await gw.run((dir) => claudeCommand(dir, { baseUrl: gw.url, key: gw.apiKey, prompt: 'say hello', output, model: 'local/echo' }));
      const seen = await seenSince(gw, before, '/v1/messages', 1);
      expectChargedTurn(run, seen, '/v1/messages');
      const result = resultOf(run.stdout);
      expect(result, runReport(run, seen)).toMatchObject({ subtype: 'success', is_error: false });
      expect(String(result?.result ?? '')).not.toBe('');
    }, 240_000);
  }

  it('-p asking for the Read tool: the tool runs, then the turn ends in text', async () => {
    const before = (await gw.seen()).length;
    const run = await gw.run(async (dir) => {
      const cmd = await claudeCommand(dir, { baseUrl: gw.url, key: gw.apiKey, prompt: 'Use the Read tool to read hello.txt', output: 'stream-json', model: 'local/echo' });
      await writeFile(join(cmd.cwd, 'hello.txt'), 'hello from a file\n');
      return cmd;
    });
    const seen = await seenSince(gw, before, '/v1/messages', 2);
    // One request that calls the tool, one that answers after its result.
    expectChargedTurn(run, seen, '/v1/messages', 2);
    expect(toolUses(run.stdout).map((b) => b.name), runReport(run, seen)).toContain('Read');
    expect(resultOf(run.stdout), runReport(run, seen)).toMatchObject({ subtype: 'success', is_error: false });
  }, 240_000);
});
