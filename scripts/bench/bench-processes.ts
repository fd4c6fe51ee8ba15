import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sleep } from './latency-stats.js';
import type { Tracked } from './proc-stats.js';
import { relayNode } from './relay-node.js';

/** A child process of the benchmark, its output in a log file. */
export interface BenchProcess extends Tracked {
  readonly logFile: string;
  /** True once it exited. */
  exited(): boolean;
  /** Resolves with the first line matching `pattern` written after `fromByte`; rejects on exit or timeout. */
  waitForLine(pattern: RegExp, timeoutMs: number, fromByte?: number): Promise<string>;
  /** Current size of the log (a starting point for {@link waitForLine}). */
  logSize(): number;
  /** The last few kilobytes of its output, for error messages. */
  tail(): string;
  /** Sends a signal if it is still running. */
  signal(sig: NodeJS.Signals): void;
}

/** How one child is started. */
export interface SpawnSpec {
  name: string;
  /** Cores for `taskset -c` (ignored when pinning is unavailable). */
  core: string;
  /** Arguments after the node binary. */
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Raise the open-files limit of the child to this (within the hard limit) before it starts. */
  nofile?: number;
  /** A command the node binary runs under (e.g. valgrind and its options). */
  wrapper?: string[];
}

/**
 * The runner's niceness before it raises its own priority as the load generator (read at
 * load, before that): children get it back, so a relay started later in the run does not
 * compete at the generator's priority with those started before it.
 */
const CHILD_NICENESS = os.getPriority(0);

function readFrom(file: string, from: number): string {
  const size = statSync(file).size;
  if (size <= from) return '';
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(size - from);
    readSync(fd, buffer, 0, buffer.length, from);
    return buffer.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * Starts and stops the benchmark's child processes. Every child is tracked from spawn on, so
 * an error, Ctrl-C or a normal end stops each of them (SIGTERM, then SIGKILL after a grace
 * period), and a last synchronous SIGKILL runs if the runner exits some other way.
 */
export class ProcessGroup {
  private readonly children = new Map<string, { child: ChildProcess; proc: BenchProcess }>();

  constructor(
    private readonly logDir: string,
    private readonly pin: boolean,
  ) {
    process.once('exit', () => this.killAllSync());
  }

  /** Spawns a Node child on the bench's {@link relayNode} (pinned with taskset when possible), stdout and stderr to its log file. */
  spawn(spec: SpawnSpec): BenchProcess {
    const logFile = path.join(this.logDir, `${spec.name}.log`);
    const fd = openSync(logFile, 'a');
    const node = [...(spec.wrapper ?? []), relayNode().path, ...spec.args];
    const argv = this.pin ? ['taskset', '-c', spec.core, ...node] : node;
    // `exec` keeps the pid, so the tracked pid is the node process itself.
    const [command, ...args] = spec.nofile === undefined ? argv : ['sh', '-c', 'ulimit -n "$0" && exec "$@"', String(spec.nofile), ...argv];
    const child = spawn(command as string, args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', fd, fd] });
    closeSync(fd);
    if (child.pid === undefined) throw new Error(`could not start ${spec.name}`);
    try {
      // Before the child starts any thread, so every thread it makes inherits this.
      os.setPriority(child.pid, CHILD_NICENESS);
    } catch {
      // It exited already; its exit is reported where it is waited for.
    }
    const exited = (): boolean => child.exitCode !== null || child.signalCode !== null;
    const proc: BenchProcess = {
      name: spec.name,
      pid: child.pid,
      core: this.pin ? spec.core : 'any',
      logFile,
      exited,
      logSize: () => statSync(logFile).size,
      tail: () => readFrom(logFile, Math.max(0, statSync(logFile).size - 4_000)),
      signal: (sig) => {
        if (!exited()) child.kill(sig);
      },
      waitForLine: async (pattern, timeoutMs, fromByte = 0) => {
        const deadline = Date.now() + timeoutMs;
        let offset = fromByte;
        let carry = '';
        while (Date.now() < deadline) {
          const text = readFrom(logFile, offset);
          offset += Buffer.byteLength(text);
          const lines = (carry + text).split('\n');
          carry = lines.pop() ?? '';
          const hit = lines.find((line) => pattern.test(line));
          if (hit !== undefined) return hit;
          if (exited()) throw new Error(`${spec.name} exited (${child.exitCode ?? child.signalCode}):\n${proc.tail()}`);
          await sleep(50);
        }
        throw new Error(`${spec.name}: no line matching ${pattern} within ${timeoutMs} ms:\n${proc.tail()}`);
      },
    };
    this.children.set(spec.name, { child, proc });
    return proc;
  }

  /** A running child by name. */
  get(name: string): BenchProcess | undefined {
    return this.children.get(name)?.proc;
  }

  /** Stops one child: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(name: string, graceMs = 10_000): Promise<void> {
    const entry = this.children.get(name);
    if (!entry) return;
    const { child, proc } = entry;
    if (!proc.exited()) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    }
    this.children.delete(name);
  }

  /** Stops every child still running, all at once. */
  async stopAll(graceMs = 10_000): Promise<void> {
    await Promise.all([...this.children.keys()].map((name) => this.stop(name, graceMs)));
  }

  /** Last resort when the runner is exiting: SIGKILL whatever is left. */
  killAllSync(): void {
    for (const { child, proc } of this.children.values()) if (!proc.exited()) child.kill('SIGKILL');
  }
}

/** Polls `url` until it answers 200; fails early when the process exits. */
export async function waitHttpReady(url: string, proc: BenchProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exited()) throw new Error(`${proc.name} exited before it was ready:\n${proc.tail()}`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`${proc.name} not ready at ${url} within ${timeoutMs} ms:\n${proc.tail()}`);
}
