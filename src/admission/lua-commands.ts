import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../platform/config/index.js';
import { assertOneSlot, type Redis } from '../platform/redis/index.js';

/** The admission scripts, by name: `src/admission/lua/<name>-<number of keys>.lua`. */
export type ScriptName = 'admit' | 'finish' | 'rate' | 'live' | 'load-mirror' | 'invalidate-mirror' | 'epoch' | 'place' | 'shrink' | 'apply-slice-charges';

interface Definition {
  readonly command: string;
  readonly numberOfKeys: number;
  readonly lua: string;
}

/** Found from the package root, so `src` (tsx) and `dist` (compiled) read the same files. */
const LUA_DIR = join(packageRoot(), 'src', 'admission', 'lua');
const INCLUDE = /^--- @include "([\w/-]+)"$/gm;

let definitions: ReadonlyMap<string, Definition> | undefined;
const registered = new WeakSet<Redis>();

/** The file's text with its `--- @include "path"` lines replaced by those files (as BullMQ does). */
function expand(file: string, seen: ReadonlySet<string> = new Set()): string {
  if (seen.has(file)) throw new Error(`Lua include cycle at ${file}`);
  const text = readFileSync(join(LUA_DIR, file), 'utf8');
  return text.replace(INCLUDE, (_line, include: string) => expand(`${include}.lua`, new Set([...seen, file])));
}

function commandName(name: string): string {
  return `farebox${name.replace(/(^|-)(\w)/g, (_m, _dash, c: string) => c.toUpperCase())}`;
}

/** Reads every script once per process (they are small; a missing folder fails at boot). */
function loadDefinitions(): ReadonlyMap<string, Definition> {
  const found = new Map<string, Definition>();
  for (const file of readdirSync(LUA_DIR)) {
    const match = /^([a-z-]+)-(\d+)\.lua$/.exec(file);
    if (!match?.[1] || !match[2]) continue;
    found.set(match[1], { command: commandName(match[1]), numberOfKeys: Number(match[2]), lua: expand(file) });
  }
  return found;
}

/**
 * Registers the scripts on a client as custom commands (ioredis `defineCommand`): ioredis
 * sends each script's source once per connection and then only its SHA, and sends the source
 * again when Redis lost its script cache (restart, SCRIPT FLUSH).
 */
export function defineScripts(redis: Redis): void {
  if (registered.has(redis)) return;
  definitions ??= loadDefinitions();
  for (const d of definitions.values()) redis.defineCommand(d.command, { numberOfKeys: d.numberOfKeys, lua: d.lua });
  registered.add(redis);
}

/** Every script's name and number of keys (for checks over all of them). */
export function scriptDefinitions(): ReadonlyMap<string, { readonly numberOfKeys: number; readonly lua: string }> {
  definitions ??= loadDefinitions();
  return definitions;
}

type ScriptCommand = (...args: Array<string | number>) => Promise<unknown>;

/** Runs a script atomically with the given keys (all in one cluster slot) and arguments. */
export function runScript(redis: Redis, name: ScriptName, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
  defineScripts(redis);
  const d = definitions?.get(name);
  if (!d) throw new Error(`no Lua script ${name} in ${LUA_DIR}`);
  if (keys.length !== d.numberOfKeys) throw new Error(`Lua script ${name} takes ${d.numberOfKeys} keys, got ${keys.length}`);
  assertOneSlot(`Lua script ${name}`, keys);
  const command = (redis as unknown as Record<string, ScriptCommand>)[d.command];
  if (!command) throw new Error(`Lua script ${name} is not registered`);
  return command.call(redis, ...keys, ...args);
}
