import { readdirSync, readFileSync } from 'node:fs';

/** A live process whose environment carries a test's mark. */
export interface MarkedProcess {
  readonly pid: number;
  /** 1 once its parent is gone: an orphan under init. */
  readonly ppid: number;
  readonly command: string;
}

function read(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // gone while we looked, or not ours to read
  }
}

/** State letter and parent pid from a `/proc/.../stat` text. */
function parseStat(stat: string): { state: string; ppid: number } {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', ppid: Number(fields[1]) };
}

/**
 * Every live process started with `name=value` in its environment, which whatever a process
 * starts inherits: processes Wine launches and re-parents to init (wineboot, wineserver, Wine's
 * services) included. Read through the threads, because a Wine process's main thread can exit
 * (a zombie with no environment to read) while its other threads still run.
 */
export function markedProcesses(name: string, value: string): MarkedProcess[] {
  const entry = `${name}=${value}`;
  const carries = (dir: string): boolean => {
    const stat = read(`${dir}/stat`);
    return stat !== '' && parseStat(stat).state !== 'Z' && read(`${dir}/environ`).split('\0').includes(entry);
  };
  const found: MarkedProcess[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    if (Number(pid) === process.pid) continue;
    const stat = read(`/proc/${pid}/stat`);
    if (stat === '') continue;
    // A zombie main thread: look for a live thread of the same process.
    const alive = parseStat(stat).state === 'Z' ? threadsOf(pid).some((tid) => carries(`/proc/${pid}/task/${tid}`)) : carries(`/proc/${pid}`);
    if (!alive) continue;
    const command = read(`/proc/${pid}/cmdline`).split('\0').filter(Boolean).join(' ');
    found.push({ pid: Number(pid), ppid: parseStat(stat).ppid, command });
  }
  return found;
}

function threadsOf(pid: string): string[] {
  try {
    return readdirSync(`/proc/${pid}/task`).filter((tid) => tid !== pid);
  } catch {
    return [];
  }
}
