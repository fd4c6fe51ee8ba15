import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A running process that belongs to a checkout. */
export interface CheckoutProcess {
  readonly pid: number;
  readonly command: string;
}

function commandOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

function cwdOf(pid: string): string {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return '';
  }
}

function isZombie(pid: string): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true; // gone while we looked
  }
}

/**
 * Every live process of the checkout at `dir`: working directory inside it (npm, tsx, the
 * supervisor, web, worker, release, redis-server in its data folder) or its path on the command
 * line (mongod under Wine, whose `--dbpath` names it). The Wine prefix's own daemons (wineserver
 * and its services) are shared by every checkout on the machine and are not counted.
 */
export function checkoutProcesses(dir: string): CheckoutProcess[] {
  const winePath = `Z:${dir.replaceAll('/', '\\')}`;
  const found: CheckoutProcess[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    if (Number(pid) === process.pid) continue;
    const cwd = cwdOf(pid);
    const command = commandOf(pid);
    const inside = cwd === dir || cwd.startsWith(`${dir}/`) || command.includes(dir) || command.includes(winePath);
    if (inside && !isZombie(pid)) found.push({ pid: Number(pid), command });
  }
  return found;
}
