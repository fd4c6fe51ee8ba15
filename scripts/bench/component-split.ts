import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** One component's share of the event loop's busy samples. */
export interface ComponentShare {
  component: string;
  samples: number;
  /** Of all busy (not idle) samples in the window, 0–1. */
  share: number;
}

/** How the busy samples of a profile window split over components. */
export interface ComponentSplit {
  /** Busy samples counted (idle samples are left out: waiting costs no instructions). */
  samples: number;
  idleSamples: number;
  components: ComponentShare[];
}

/**
 * Project source folders and files (under `src/`, as compiled to `dist/src/`) by component.
 * The longest matching prefix wins.
 */
const SOURCE_COMPONENTS: ReadonlyArray<[string, string]> = [
  ['ledger/records/', 'records'],
  ['http/middleware/record-requests', 'records'],
  ['ledger/', 'ledger'],
  ['chat/settle/', 'ledger'],
  ['platform/db/', 'ledger'],
  ['platform/log/', 'logging'],
  ['http/middleware/access-log', 'logging'],
  ['metrics/', 'metrics'],
  ['platform/metrics/', 'metrics'],
  ['http/middleware/metrics-middleware', 'metrics'],
  ['admission/', 'admission'],
  ['accounts/', 'admission'],
  ['chat/admit/', 'admission'],
  ['platform/redis/', 'admission'],
  ['http/middleware/authenticate', 'admission'],
  ['http/middleware/rate-limit', 'admission'],
  ['chat/admit/chat-estimate', 'validation and pricing'],
  ['chat/admit/chat-worst-case', 'validation and pricing'],
  ['chat/admit/prompt-bound', 'validation and pricing'],
  ['chat/wire/chat-schema', 'validation and pricing'],
  ['quote/', 'validation and pricing'],
  ['billing/', 'validation and pricing'],
  ['catalog/', 'validation and pricing'],
  ['platform/validation/', 'validation and pricing'],
  ['http/middleware/cost-ceiling', 'validation and pricing'],
  ['http/middleware/json-limits', 'validation and pricing'],
  ['http/middleware/require-content-type', 'validation and pricing'],
  ['providers/', 'upstream'],
  ['routing/', 'upstream'],
  ['chat/routes/', 'upstream'],
  ['platform/security/', 'upstream'],
  ['http/', 'HTTP edge'],
  ['chat/doors/', 'HTTP edge'],
  ['chat/wire/', 'HTTP edge'],
  ['platform/errors/', 'HTTP edge'],
  ['platform/idempotency/', 'HTTP edge'],
  ['platform/runtime/http-drain', 'HTTP edge'],
  ['chat/', 'chat core'],
];

/**
 * Shared helpers (id generation, canonical JSON, the read-through cache) that every component
 * calls: a sample in them goes to the nearest project frame above them that is not one of them.
 */
const PASS_THROUGH = ['platform/util/'];

/**
 * Packages (and Node's own HTTP server modules) by component, for stacks with no project frame
 * on them: after an `await` inside a library, or on a socket's data event, the stack starts at
 * the microtask queue or the event loop, not at the project code that called the library
 * (MongoDB commands serialized and replies decoded, Redis replies parsed, undici reading a
 * response, Koa writing one).
 */
const PACKAGE_COMPONENTS: ReadonlyArray<[RegExp, string]> = [
  [/^(mongodb|bson)$/, 'MongoDB driver (ledger, records)'],
  [/^(ioredis|redis-parser|redis-errors|cluster-key-slot)$/, 'admission'],
  [/^undici$/, 'upstream'],
  [/^(pino|pino-std-serializers|sonic-boom|thread-stream|fast-redact|quick-format-unescaped|atomic-sleep|on-exit-leak-free)$/, 'logging'],
  [/^(prom-client|tdigest|bintrees)$/, 'metrics'],
  [/^zod$/, 'validation and pricing'],
  [/^(koa|@koa\/.+|koa-.+|raw-body|co-body|@hapi\/bourne|http-errors|statuses|on-finished|vary|accepts|type-is|content-type|cookies|delegates|fresh|encodeurl|depd|destroy|only|iconv-lite|bytes|inflation)$/, 'HTTP edge'],
  [/^node:_http_(server|incoming|outgoing|common)$/, 'HTTP edge'],
];

const RUNTIME = 'runtime (Node internals, native, no project caller)';
const GC = 'GC';

/** The `src/`-relative path of a project source frame, or undefined for anything else. */
function sourcePath(url: string, root: string): string | undefined {
  const prefix = `file://${root}/`;
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length).replace(/^dist\//, '');
  return rest.startsWith('src/') ? rest.slice('src/'.length) : undefined;
}

/** The package a frame belongs to (the innermost `node_modules/<pkg>`), or the `node:` module. */
function libraryOf(url: string): string | undefined {
  if (url.startsWith('node:')) return url;
  return /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules\/)/.exec(url)?.[1];
}

function sourceComponent(file: string): string {
  let best: [string, string] | undefined;
  for (const entry of SOURCE_COMPONENTS) if (file.startsWith(entry[0]) && entry[0].length > (best?.[0].length ?? -1)) best = entry;
  return best?.[1] ?? 'other project code';
}

/**
 * The component of a sample: the nearest project frame up its stack decides; with none, the
 * nearest package frame the table knows; with neither, GC or the runtime.
 */
function componentOf(leaf: number, parents: ReadonlyMap<number, number>, byId: ReadonlyMap<number, ProfileNode>, root: string): string | 'idle' {
  const name = byId.get(leaf)?.callFrame.functionName;
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return GC;
  let firstPackage: string | undefined;
  let helper: string | undefined;
  for (let id: number | undefined = leaf; id !== undefined; id = parents.get(id)) {
    const url = byId.get(id)?.callFrame.url ?? '';
    const file = sourcePath(url, root);
    if (file !== undefined) {
      if (!PASS_THROUGH.some((prefix) => file.startsWith(prefix))) return sourceComponent(file);
      helper ??= file;
      continue;
    }
    if (firstPackage === undefined && helper === undefined) {
      const library = libraryOf(url);
      const hit = library === undefined ? undefined : PACKAGE_COMPONENTS.find(([pattern]) => pattern.test(library));
      if (hit) firstPackage = hit[1];
    }
  }
  if (helper !== undefined) return 'other project code';
  return firstPackage ?? RUNTIME;
}

/**
 * Splits the busy samples of a `.cpuprofile` taken between `fromUs` and `toUs` (microseconds
 * on the monotonic clock `process.hrtime` reads, which V8's profile timestamps share) over
 * components, by the nearest project source file up each sample's stack (see componentOf).
 */
export function splitProfile(file: string, root: string, fromUs: number, toUs: number): ComponentSplit {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const counts = new Map<string, number>();
  let at = profile.startTime;
  let idleSamples = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at < fromUs || at > toUs) return;
    const component = componentOf(id, parents, byId, root);
    if (component === 'idle') {
      idleSamples += 1;
      return;
    }
    busy += 1;
    counts.set(component, (counts.get(component) ?? 0) + 1);
  });
  const components = [...counts.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([component, samples]) => ({ component, samples, share: busy > 0 ? Math.round((samples / busy) * 10_000) / 10_000 : 0 }));
  return { samples: busy, idleSamples, components };
}

// `tsx scripts/bench/component-split.ts <file.cpuprofile> [root]` splits a whole profile.
if (process.argv[1]?.endsWith('component-split.ts') && process.argv[2]) {
  console.log(JSON.stringify(splitProfile(process.argv[2], process.argv[3] ?? process.cwd(), 0, Number.MAX_SAFE_INTEGER), null, 2));
}
