import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync } from 'node:fs';

/** The environment variable that names the `npm start` a process belongs to. */
const RUN_MARK_VAR = 'FAREBOX_START_RUN';

/**
 * Marks `env` (this process's environment, before anything is started) with a value of this run's
 * own. Every process started from here inherits it, and so does every process those start: Wine
 * hands it to the wineboot, wineserver and Wine services it launches for mongod, which go to init
 * at once and are never recorded by pid. The mark is how an abrupt stop still finds them.
 */
export function markRun(env: NodeJS.ProcessEnv): string {
  const mark = `${process.pid}-${randomUUID()}`;
  env[RUN_MARK_VAR] = mark;
  return mark;
}

/** What the sweep needs to know of a process: whether it is ours, and its Wine prefix if any. */
interface Seen {
  readonly pid: number;
  readonly marked: boolean;
  /** The real path of its `WINEPREFIX`, for Wine processes. */
  readonly winePrefix?: string;
  /** Wine's server or one of its services (as in scripts/services/wine-programs.ts), not a program run under Wine. */
  readonly wineOwn: boolean;
}

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

function readOr(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // gone, or not ours to read
  }
}

/**
 * The environment `pid` was started with, or undefined. Read through another thread when the main
 * one has exited: a Wine process's main thread can end first (mongod does as it shuts down),
 * leaving a zombie with no environment to read while the process itself still runs.
 */
function environOf(pid: number): string[] | undefined {
  const own = readOr(`/proc/${pid}/environ`);
  if (own !== '') return own.split('\0');
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  const text = threads.map((tid) => readOr(`/proc/${pid}/task/${tid}/environ`)).find((t) => t !== '');
  return text?.split('\0');
}

/** What the sweep needs to know of a process, or undefined (gone, a zombie, or not ours to read). */
function seen(pid: number, mark: string): Seen | undefined {
  const environ = environOf(pid);
  if (environ === undefined) return undefined;
  const argv0 = readOr(`/proc/${pid}/cmdline`).split('\0')[0] ?? '';
  const prefix = environ.find((e) => e.startsWith('WINEPREFIX='))?.slice('WINEPREFIX='.length);
  return {
    pid,
    marked: environ.includes(`${RUN_MARK_VAR}=${mark}`),
    ...(prefix === undefined ? {} : { winePrefix: realpathOr(prefix) }),
    wineOwn: /^c:\\windows\\/i.test(argv0) || /(^|\/)wineserver(64)?$/.test(argv0),
  };
}

/** Marked processes to kill now: every one but Wine's own in a prefix an unmarked process also uses. */
function doomed(mark: string): Seen[] {
  const all: Seen[] = [];
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    const found = seen(pid, mark);
    if (found) all.push(found);
  }
  // Prefixes some other start or test also runs Wine processes in: their Wine server is shared.
  const shared = new Set(all.filter((p) => !p.marked && p.winePrefix !== undefined).map((p) => p.winePrefix));
  return all.filter((p) => p.marked && !(p.wineOwn && shared.has(p.winePrefix)));
}

/** Most passes of {@link killMarked}; each one finds only what was forked while the last one ran. */
const MAX_PASSES = 5;

/**
 * SIGKILLs every process that carries `mark`, except this one (synchronous: safe in an exit
 * handler). Wine's own processes are spared while an unmarked process uses their prefix: the
 * Wine server this run started may since serve another start or a test run sharing the prefix.
 * Looks again until a pass finds nothing new: a process killed mid-fork leaves a child behind.
 */
export function killMarked(mark: string): void {
  const signalled = new Set<number>();
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const fresh = doomed(mark).filter((p) => !signalled.has(p.pid));
    if (fresh.length === 0) break;
    for (const p of fresh) {
      signalled.add(p.pid);
      try {
        // By pid, not signalRef: that skips a zombie main thread whose process still runs.
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // Gone in the meantime.
      }
    }
  }
}
