import fs from 'node:fs/promises';

/** Wine's own processes in a prefix: its server and the services under `C:\windows\`. */
function isWineOwn(argv0: string): boolean {
  return /^c:\\windows\\/i.test(argv0) || /(^|\/)wineserver(64)?$/.test(argv0);
}

async function realpathOr(file: string): Promise<string> {
  return fs.realpath(file).catch(() => file);
}

/** The `WINEPREFIX` a process was started with and its first argument; undefined when unreadable. */
async function wineProcess(pid: string): Promise<{ prefix: string; argv0: string } | undefined> {
  try {
    const environ = await fs.readFile(`/proc/${pid}/environ`, 'utf8');
    const entry = environ.split('\0').find((e) => e.startsWith('WINEPREFIX='));
    if (entry === undefined) return undefined;
    const argv0 = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0')[0] ?? '';
    return { prefix: entry.slice('WINEPREFIX='.length), argv0 };
  } catch {
    return undefined; // gone, or not ours to read
  }
}

/**
 * Pids of programs (not Wine's own server and services) running in `prefix`, however the prefix
 * was named (a symlinked prefix is the same prefix: one wineserver serves both).
 */
export async function programsInPrefix(prefix: string): Promise<number[]> {
  const wanted = await realpathOr(prefix);
  const pids = (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const found: number[] = [];
  for (const pid of pids) {
    const wine = await wineProcess(pid);
    if (wine === undefined || isWineOwn(wine.argv0)) continue;
    if ((await realpathOr(wine.prefix)) === wanted) found.push(Number(pid));
  }
  return found;
}
