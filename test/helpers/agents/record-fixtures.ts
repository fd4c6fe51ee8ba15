/**
 * Records the first requests of the real agent clients into test/fixtures/agents/<client>/<name>.json:
 *   npx tsx test/helpers/agents/record-fixtures.ts [case-name ...]
 * Each client runs once against a capture server on loopback that answers a minimal valid reply,
 * so the client finishes its turn. Needs the clients (bash scripts/agents/install-agents.sh).
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentsSdkCommand, claudeCommand, codexCommand, opencodeCommand, type AgentCommand } from './agent-configs.js';
import { AGENTS_DIR, agentsMissing, agentVersion, runAgent } from './agent-install.js';
import { startCaptureServer } from './capture-server.js';
import type { AgentFixture } from './agent-fixtures.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));
/** The key every recorded client is given; redacted from what is saved all the same. */
const KEY = 'sk-fbx-capture-key-0000000000000000';
const PROMPT = 'say hello';

interface RecordCase {
  client: string;
  name: string;
  pkg: string;
  /** What was set besides the base URL and key, for the fixture's reader. */
  setup: string;
  /** The client's licence forbids redistributing its prompts: long strings are elided (see elideProse). */
  elide?: boolean;
  command(dir: string, baseUrl: string): Promise<AgentCommand>;
}

const claude = (output: 'json' | 'stream-json', model?: string): RecordCase => ({
  client: 'claude-code', name: `print-${output}${model ? '-local-echo' : ''}`, pkg: '@anthropic-ai/claude-code', elide: true,
  setup: `claude -p "${PROMPT}" --output-format ${output}; ANTHROPIC_BASE_URL, ${model ? `ANTHROPIC_AUTH_TOKEN; ANTHROPIC_MODEL and ANTHROPIC_DEFAULT_HAIKU_MODEL ${model}` : 'ANTHROPIC_API_KEY; default model'}; telemetry and updates off`,
  command: (dir, baseUrl) => claudeCommand(dir, { baseUrl, key: KEY, prompt: PROMPT, output, model, auth: model ? 'auth-token' : 'api-key' }),
});
const codex = (json: boolean, model?: string): RecordCase => ({
  client: 'codex', name: `${json ? 'exec-json' : 'exec'}${model ? '-local-echo' : ''}`, pkg: '@openai/codex',
  setup: `codex exec${json ? ' --json' : ''} "${PROMPT}"; custom provider, wire_api = "responses"; ${model ? `model = "${model}"` : 'default model'}`,
  command: (dir, baseUrl) => codexCommand(dir, { baseUrl, key: KEY, prompt: PROMPT, json, model }),
});
const opencode = (name: string, npm: 'openai-compatible' | 'anthropic' | 'openai', model: string): RecordCase => ({
  client: 'opencode', name, pkg: 'opencode-linux-x64',
  setup: `opencode run "${PROMPT}"; provider npm @ai-sdk/${npm}, model ${model}`,
  command: (dir, baseUrl) => opencodeCommand(dir, { baseUrl, key: KEY, prompt: PROMPT, npm: `@ai-sdk/${npm}`, model }),
});
const agentsSdk = (api: 'responses' | 'chat_completions', stream: boolean): RecordCase => ({
  client: 'openai-agents', name: `${api.replace('_', '-')}${stream ? '-stream' : ''}`, pkg: '@openai/agents',
  setup: `Agent with one function tool, setOpenAIAPI("${api}"), run(..., { stream: ${stream} }), model gpt-5-mini`,
  command: (dir, baseUrl) => agentsSdkCommand(dir, { baseUrl, key: KEY, prompt: PROMPT, api, stream, model: 'gpt-5-mini', agentsDir: AGENTS_DIR }),
});

/** Strings at least this long are the client's prose (system prompt, tool descriptions, reminders). */
const PROSE_CHARS = 160;

/**
 * Replaces each long string by a note of the same length: every field, its type and the request's
 * size stay as sent (holds and token bounds see the same bytes), the text itself does not.
 */
function elideProse(value: unknown): unknown {
  if (typeof value === 'string') {
    if (value.length < PROSE_CHARS) return value;
    const note = `[${value.length} characters of the client's own text, left out of the fixture] `;
    return note.padEnd(value.length, 'lorem ipsum ').slice(0, value.length);
  }
  if (Array.isArray(value)) return value.map(elideProse);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, elideProse(v)]));
  return value;
}

const CASES: RecordCase[] = [
  claude('json'), claude('stream-json'), claude('json', 'local/echo'),
  codex(false), codex(true), codex(false, 'local/echo'),
  opencode('openai-compatible', 'openai-compatible', 'local/echo'),
  opencode('anthropic', 'anthropic', 'claude-sonnet-4-5'),
  opencode('openai', 'openai', 'gpt-5'),
  agentsSdk('responses', false), agentsSdk('responses', true),
  agentsSdk('chat_completions', false), agentsSdk('chat_completions', true),
];

async function record(c: RecordCase): Promise<void> {
  const capture = await startCaptureServer([KEY]);
  const dir = await mkdtemp(join(tmpdir(), `fbx-record-${c.client}-`));
  try {
    const cmd = await c.command(dir, capture.url);
    const result = await runAgent(cmd.command, cmd.args, { env: cmd.env, cwd: cmd.cwd, timeoutMs: 180_000 });
    const fixture: AgentFixture = {
      client: c.client, name: c.name, package: c.pkg, version: agentVersion(c.pkg), recorded_at: new Date().toISOString(),
      setup: c.setup, exit_code: result.code,
      requests: c.elide ? capture.requests.map((r) => ({ ...r, body: elideProse(r.body) })) : capture.requests,
    };
    await mkdir(join(FIXTURES, c.client), { recursive: true });
    await writeFile(join(FIXTURES, c.client, `${c.name}.json`), `${JSON.stringify(fixture, null, 2)}\n`);
    console.log(`${c.client}/${c.name}: exit ${result.code}, ${capture.requests.length} requests`);
    if (result.code !== 0) console.log(`  stderr: ${result.stderr.slice(-1500)}\n  stdout: ${result.stdout.slice(-800)}`);
  } finally {
    await capture.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const missing = agentsMissing();
if (missing) {
  console.error(missing);
  process.exit(1);
}
const wanted = process.argv.slice(2);
for (const c of CASES.filter((x) => wanted.length === 0 || wanted.includes(`${x.client}/${x.name}`) || wanted.includes(x.client))) {
  await record(c);
}
