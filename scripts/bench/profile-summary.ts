import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time of one function or one area of the code, in percent of all samples. */
export interface ProfileEntry {
  name: string;
  percent: number;
}

/** The heaviest functions and the heaviest areas (package or source folder) by self time. */
export interface ProfileSummary {
  samples: number;
  functions: ProfileEntry[];
  areas: ProfileEntry[];
}

/** Groups a script URL by package (`node_modules/<pkg>`), source folder or Node internals. */
function areaOf(url: string): string {
  if (url === '') return '(native/gc/idle)';
  if (url.startsWith('node:')) return url;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1]) return pkg[1];
  const source = /\/(?:dist\/)?((?:src|workers|scripts)\/[^/]+)/.exec(url);
  return source?.[1] ?? url;
}

function top(counts: Map<string, number>, total: number, limit: number): ProfileEntry[] {
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, n]) => ({ name, percent: Math.round((n / total) * 1000) / 10 }));
}

/** Reads a `.cpuprofile` (from `--cpu-prof`) and ranks self time by function and by area. */
export function summarizeProfile(file: string, limit = 20): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  for (const id of profile.samples) {
    const frame = byId.get(id)?.callFrame;
    if (!frame) continue;
    const file = frame.url.replace(/^file:\/\/.*?\/(node_modules|src|dist|workers|scripts)\//, '$1/');
    const name = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    functions.set(name, (functions.get(name) ?? 0) + 1);
    const area = areaOf(frame.url);
    areas.set(area, (areas.get(area) ?? 0) + 1);
  }
  const total = profile.samples.length || 1;
  return { samples: profile.samples.length, functions: top(functions, total, limit), areas: top(areas, total, limit) };
}

/** Printable form of a summary. */
export function formatProfile(summary: ProfileSummary): string {
  const list = (entries: ProfileEntry[]) => entries.map((e) => `  ${e.percent.toFixed(1).padStart(5)}%  ${e.name}`).join('\n');
  return `CPU profile of web (${summary.samples} samples), self time by area:\n${list(summary.areas)}\nby function:\n${list(summary.functions)}`;
}

// `tsx scripts/bench/profile-summary.ts <file.cpuprofile>` prints the summary of any profile.
if (process.argv[1]?.endsWith('profile-summary.ts') && process.argv[2]) {
  console.log(formatProfile(summarizeProfile(process.argv[2], 30)));
}
