import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

/** Kernel clock ticks per second, the unit of utime/stime in /proc/<pid>/stat (100 on Linux). */
const CLOCK_TICKS = 100;

/** CPU time a process has used so far, in seconds (all threads, user + system). */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces; fields count from after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return (utime + stime) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

/** Resident set size of a process in bytes, or undefined when it is gone. */
export function rssBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The short command name of a process (`/proc/<pid>/comm`). */
export function processName(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return `pid ${pid}`;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children, grandchildren, …), read from /proc. */
export function descendantsOf(root: number): number[] {
  let pids: number[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name)).map(Number);
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const pid of pids) {
    const parent = parentOf(pid);
    if (parent === undefined) continue;
    const list = children.get(parent) ?? [];
    list.push(pid);
    children.set(parent, list);
  }
  const out: number[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** True when `taskset` can pin processes here (Linux with util-linux). */
export function canPin(): boolean {
  try {
    execFileSync('taskset', ['-p', String(process.pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Moves a running process and all its threads to the given cores; false when that failed. */
export function pinProcess(pid: number, cores: string): boolean {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Gives the load generator the first claim on its core (nice -10, when allowed): it shares
 * that core with MongoDB and Redis, which only Farebox's runs keep busy, and a generator that
 * sends late adds its own lateness to Farebox's latency alone. Returns the niceness in effect.
 */
export function prioritizeGenerator(): number {
  try {
    os.setPriority(0, GENERATOR_NICENESS);
  } catch {
    // Not permitted (not root, no CAP_SYS_NICE): the run goes on at the default priority.
  }
  return os.getPriority(0);
}

const GENERATOR_NICENESS = -10;

/** A named process whose CPU use is sampled between two points of the run. */
export interface Tracked {
  readonly name: string;
  readonly pid: number;
  readonly core: string;
}

/** CPU use of one process over an interval, in percent of one core. */
export interface CpuUse {
  name: string;
  core: string;
  percent: number;
}

/** Whole-machine CPU time so far (all cores), in seconds: busy, and stolen by the hypervisor. */
function machineCpu(): { busy: number; steal: number } {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return { busy: (user + nice + system + irq + softirq) / CLOCK_TICKS, steal: steal / CLOCK_TICKS };
  } catch {
    return { busy: 0, steal: 0 };
  }
}

/** CPU use over one measurement: each tracked process, everything else, and steal. */
export interface CpuSample {
  processes: CpuUse[];
  /** CPU used by processes the bench did not start (other work on the machine), % of one core. */
  othersPercent: number;
  /** CPU time the hypervisor took from this machine, % of one core. */
  stealPercent: number;
}

const percentOf = (used: number, seconds: number): number => (seconds > 0 ? Math.round((used / seconds) * 1000) / 10 : 0);

/** Starts a CPU measurement over the given processes; the returned function ends it. */
export function measureCpu(processes: readonly Tracked[]): () => CpuSample {
  const started = performance.now();
  const before = processes.map((p) => cpuSeconds(p.pid));
  const machineBefore = machineCpu();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const machineAfter = machineCpu();
    let ours = 0;
    const used = processes.map((p, i) => {
      const end = cpuSeconds(p.pid);
      const start = before[i];
      const delta = end === undefined || start === undefined ? 0 : end - start;
      ours += delta;
      return { name: p.name, core: p.core, percent: percentOf(delta, seconds) };
    });
    const others = Math.max(0, machineAfter.busy - machineBefore.busy - ours);
    return { processes: used, othersPercent: percentOf(others, seconds), stealPercent: percentOf(machineAfter.steal - machineBefore.steal, seconds) };
  };
}

/** The soft open-files limit processes started from here inherit (`ulimit -n`). */
export function openFileLimit(): number {
  try {
    const text = execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
    return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
  } catch {
    return 1_024;
  }
}

/** The hard open-files limit (`ulimit -Hn`), the most a child may raise its own to. */
export function hardOpenFileLimit(): number {
  try {
    const text = execFileSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' }).trim();
    return text === 'unlimited' ? Number.POSITIVE_INFINITY : Number(text);
  } catch {
    return 1_024;
  }
}
