import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Instructions of one callgrind dump: every thread, and thread 1 (the event-loop thread). */
export interface DumpTotals {
  all: number;
  main: number;
}

/** True when valgrind's callgrind and its control tool are installed. */
export function callgrindAvailable(): boolean {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
    execFileSync('which', ['callgrind_control'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Zeroes the counters of the callgrind process `pid`. */
export function zeroCounters(pid: number): void {
  execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' });
}

/** Dumps the counters of `pid` (callgrind then starts counting from zero again). */
export function dumpCounters(pid: number): void {
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
}

/** The `totals:` (or `summary:`) line of a callgrind dump file. */
function totalOf(file: string): number {
  const match = /^(?:totals|summary): (\d+)/m.exec(readFileSync(file, 'utf8'));
  if (!match?.[1]) throw new Error(`no instruction total in ${file}`);
  return Number(match[1]);
}

/**
 * Instructions of dump number `dump` of process `pid`, written with
 * `--callgrind-out-file=<dir>/<prefix>.%p --separate-threads=yes`: one file per thread,
 * `<prefix>.<pid>.<dump>-<thread>`, thread 01 being the main thread.
 */
export function dumpTotals(dir: string, prefix: string, pid: number, dump: number): DumpTotals {
  const pattern = new RegExp(`^${prefix.replace(/\./g, '\\.')}\\.${pid}\\.${dump}-(\\d+)$`);
  const files = readdirSync(dir).filter((f) => pattern.test(f));
  if (files.length === 0) throw new Error(`no callgrind dump ${dump} of ${prefix} (pid ${pid}) in ${dir}`);
  let all = 0;
  let main = 0;
  for (const file of files) {
    const total = totalOf(path.join(dir, file));
    all += total;
    if (file.endsWith('-01')) main = total;
  }
  return { all, main };
}
