import { spawn, type ChildProcess } from 'node:child_process';
import { captureOutput } from '../../helpers/capture-output.js';

/** A real `npm start` in a checkout, in its own process group as a terminal would run it. */
export interface NpmStart {
  readonly pid: number;
  output(): string;
  /** Resolves once npm has exited: "code N", or "signal S" (npm ends on the SIGTERM it forwarded). */
  readonly exited: Promise<string>;
  hasExited(): boolean;
  /** SIGTERM to the whole group (npm, tsx, the supervisor), as `kill -TERM -<pgid>` does. */
  terminate(): void;
  /** SIGINT to the group: a Ctrl-C in the terminal. */
  interrupt(): void;
  /** SIGTERM to npm alone, as `kill <pid>` or a process manager that signals one pid does. */
  terminateNpmOnly(): void;
  /** SIGKILL to the group; cleanup only. */
  kill(): void;
}

/** Options for {@link startNpm}. */
export interface StartNpmOptions {
  /** Extra environment (PORT at least). */
  readonly env: Record<string, string>;
  /** Close our end of the output pipes once this text was printed: a reader that exits early. */
  readonly closeOutputAfter?: string;
}

/** The environment a new user's shell would give: no store URLs, so npm start runs its own. */
function baseEnv(): Record<string, string> {
  const keep = ['PATH', 'HOME', 'USER', 'LANG', 'TMPDIR', 'SHELL'];
  const env: Record<string, string> = { FAREBOX_SERVICES: 'local' };
  for (const name of keep) if (process.env[name] !== undefined) env[name] = process.env[name] as string;
  return env;
}

/** Runs `npm start` in `dir` with stdout and stderr piped to this process. */
export function startNpm(dir: string, options: StartNpmOptions): NpmStart {
  const child: ChildProcess = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...baseEnv(), ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const pid = child.pid ?? 0;
  const output = captureOutput(child, 400_000, (tail) => {
    if (options.closeOutputAfter !== undefined && tail.includes(options.closeOutputAfter)) {
      // Like `| sed '/…/q'`: the reader goes away; the next write of any process gets EPIPE.
      child.stdout?.destroy();
      child.stderr?.destroy();
    }
  });
  let how: string | undefined;
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve((how = signal ? `signal ${signal}` : `code ${String(code)}`))));
  const signalGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // group gone
    }
  };
  return {
    pid,
    output,
    exited,
    hasExited: () => how !== undefined,
    terminate: () => signalGroup('SIGTERM'),
    interrupt: () => signalGroup('SIGINT'),
    terminateNpmOnly: () => {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // npm gone
      }
    },
    kill: () => signalGroup('SIGKILL'),
  };
}

/** True once the gateway at `port` answers `/readyz` with 200. */
export async function gatewayReady(port: number): Promise<boolean> {
  try {
    return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200;
  } catch {
    return false;
  }
}

/**
 * The last `chars` of a start's output without mongod's own log lines (JSON, one per event):
 * a failing start's reason would otherwise be scrolled out by mongod's shutdown log.
 */
export function outputTail(output: string, chars = 4_000): string {
  return output
    .split('\n')
    .filter((line) => !line.startsWith('{"t":'))
    .join('\n')
    .slice(-chars);
}

/** Polls `check` every 100 ms; throws with `what` (and the output) after `timeoutMs`. */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, timeoutMs: number, output = (): string => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}\n${outputTail(output())}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
