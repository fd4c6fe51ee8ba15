import os from 'node:os';
import { readFileSync } from 'node:fs';
import type { CpuUse } from './proc-stats.js';
import { relayNode } from './relay-node.js';

/** CPU use of every process during one measurement. */
export interface CpuRecord {
  during: string;
  seconds: number;
  processes: CpuUse[];
  /** CPU of processes the bench did not start, % of one core: more than a little skews results. */
  othersPercent: number;
  stealPercent: number;
}

function r(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** CPU use per process, one line per measurement, in percent of one core. */
export function formatCpu(records: readonly CpuRecord[]): string {
  return records
    .map((rec) => {
      const parts = rec.processes.filter((p) => p.percent >= 0.5).map((p) => `${p.name}@${p.core} ${p.percent.toFixed(0)}%`);
      const outside = `| not ours ${rec.othersPercent.toFixed(0)}%${rec.stealPercent >= 1 ? `, steal ${rec.stealPercent.toFixed(0)}%` : ''}`;
      return `${rec.during.padEnd(34)} ${parts.join(', ')} ${outside}`;
    })
    .join('\n');
}

/** What the numbers were measured on. */
export interface MachineInfo {
  cpuModel: string;
  cpuCount: number;
  memoryGiB: number;
  /** The Node the relays run on (see relayNode), and the runner's when it differs. */
  node: string;
  os: string;
  /** Load average when the run started and ended: other work on the machine skews results. */
  loadAverage: { start: number[]; end?: number[] };
}

/** Describes this machine (CPU, memory, Node, OS, load). */
export function machineInfo(): MachineInfo {
  const cpus = os.cpus();
  let osName = `${os.type()} ${os.release()}`;
  try {
    const pretty = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (pretty?.[1]) osName = `${pretty[1]} (${os.release()})`;
  } catch {
    // not Linux
  }
  const relays = relayNode().version;
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    memoryGiB: r(os.totalmem() / 1024 ** 3, 1),
    node: relays === process.version ? relays : `${relays} (relays; runner ${process.version})`,
    os: osName,
    loadAverage: { start: os.loadavg().map((v) => r(v, 2)) },
  };
}
