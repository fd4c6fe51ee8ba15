import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../../src/platform/config/package-root.js';
import { AdmissionKeys } from '../../../src/admission/admission-keys.js';
import type { ScriptName } from '../../../src/admission/lua-commands.js';
import { scriptDefinitions } from '../../../src/admission/lua-commands.js';
import { SCRIPT_KEYS } from '../../../src/admission/script-keys.js';
import { endUserTag } from '../../../src/admission/end-user.js';
import { assertOneSlot, hashTag, keySlot } from '../../../src/platform/redis/key-slot.js';
import { newId } from '../../../src/platform/util/ids.js';

const LUA_DIR = join(packageRoot(), 'src', 'admission', 'lua');

/**
 * Key arguments of `redis.call` that a script built itself: the first argument after the
 * command name (the key of every command the scripts use) must be a declared key — KEYS[n],
 * or a local or parameter that holds one — never ARGV, a string literal, a concatenation, or
 * a local computed from those.
 */
function builtKeys(lua: string): string[] {
  const tainted = new Set<string>();
  for (const m of lua.matchAll(/local\s+([\w\s,]+?)\s*=\s*([^\n]+)/g)) {
    if (/ARGV|\.\.|['"]|string\.|tostring/.test(m[2] as string)) for (const name of (m[1] as string).split(',')) tainted.add(name.trim());
  }
  const found: string[] = [];
  for (const m of lua.matchAll(/redis\.call\(\s*'(\w+)'\s*(?:,\s*([^,)]+))?/g)) {
    const [, command, first] = m;
    if (command === 'TIME' || first === undefined) continue;
    const arg = first.trim();
    if (/ARGV|\.\.|['"]|string\.|tostring/.test(arg) || tainted.has(arg)) found.push(`${command} ${arg}`);
  }
  return found;
}

describe('admission scripts on a Redis Cluster', () => {
  const definitions = scriptDefinitions();

  it('declare keys of one hash slot per account, for a sample of accounts and generations', () => {
    expect(definitions.size).toBeGreaterThanOrEqual(8);
    const slots = new Set<number>();
    for (let i = 0; i < 200; i++) {
      const keys = new AdmissionKeys(i % 2 === 0 ? 'fbx' : 'tenant:b');
      keys.generation = i % 3 === 0 ? '0' : `g${i}`;
      const scope = { accountId: newId('acct'), keyId: newId('key'), requestId: newId('req'), at: new Date(Date.UTC(2026, i % 12, 1 + (i % 28))), endUser: i % 4 === 0 ? undefined : endUserTag(`user ${i}`) };
      for (const [name, d] of definitions) {
        const build = SCRIPT_KEYS[name as ScriptName];
        expect(build, `no key builder for script ${name}`).toBeDefined();
        const declared = build(keys, scope);
        expect(declared, name).toHaveLength(d.numberOfKeys);
        const first = keySlot(declared[0] as string);
        for (const key of declared) expect(keySlot(key), `${name}: ${key}`).toBe(first);
        if (name !== 'epoch') {
          expect(declared.every((k) => k.includes(`{${scope.accountId}}`)), name).toBe(true);
          slots.add(first);
        }
      }
    }
    // Accounts spread over the cluster rather than all landing on one shard.
    expect(slots.size).toBeGreaterThan(150);
  });

  it('build no key they did not declare (scanning every script and include)', () => {
    const files = [...readdirSync(LUA_DIR).filter((f) => f.endsWith('.lua')), ...readdirSync(join(LUA_DIR, 'includes')).map((f) => `includes/${f}`)];
    expect(files.length).toBeGreaterThanOrEqual(10);
    for (const file of files) expect(builtKeys(readFileSync(join(LUA_DIR, file), 'utf8')), file).toEqual([]);
  });

  it('the scan catches keys made from ARGV, literals and concatenation', () => {
    expect(builtKeys("redis.call('GET', ARGV[1])")).toEqual(['GET ARGV[1]']);
    expect(builtKeys("local k = KEYS[1] .. ':x'\nredis.call('INCR', k)")).toEqual(['INCR k']);
    expect(builtKeys("redis.call('DEL', 'fbx:other')")).toEqual(["DEL 'fbx:other'"]);
    expect(builtKeys("local log = KEYS[2]\nredis.call('ZCARD', log)\nredis.call('TIME')")).toEqual([]);
  });

  it('a call over keys of two slots is refused before it reaches Redis', () => {
    expect(() => assertOneSlot('test', ['fbx:{acct_a}:bal', 'fbx:{acct_a}:held'])).not.toThrow();
    expect(() => assertOneSlot('test', ['fbx:{acct_a}:bal', 'fbx:{acct_b}:bal'])).toThrow(/spans Redis Cluster slots/);
    // Untagged keys and empty tags fall back to the CRC16 of the whole key.
    expect(() => assertOneSlot('test', ['fbx:{}:a', 'fbx:{}:b'])).toThrow(/spans Redis Cluster slots/);
    expect(() => assertOneSlot('test', ['{acct_a}', 'acct_a'])).not.toThrow();
  });

  it('keys with the same hash tag are the keys CRC16 puts in one slot', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b, c, d) => {
        for (const [x, y] of [[`${a}${b}`, `${c}${d}`], [`${a}{${b}}${c}`, `${d}{${b}}`], [`${a}{${b}}`, `${c}{${d}}`]] as const) {
          if (hashTag(x) !== undefined && hashTag(x) === hashTag(y)) expect(keySlot(x)).toBe(keySlot(y));
          const tag = hashTag(x);
          expect(keySlot(x)).toBe(keySlot(tag === undefined ? x : tag));
        }
      }),
    );
  });

  it('refuses exactly the key lists CRC16 spreads over more than one slot', () => {
    const part = fc.string({ maxLength: 6, unit: fc.constantFrom('a', 'b', '{', '}', ':') });
    const key = fc.tuple(part, part, part).map(([a, b, c]) => `${a}{${b}}${c}`);
    fc.assert(
      fc.property(fc.array(fc.oneof(key, part), { minLength: 1, maxLength: 5 }), (keys) => {
        const spans = new Set(keys.map(keySlot)).size > 1;
        if (spans) expect(() => assertOneSlot('test', keys)).toThrow(/spans Redis Cluster slots/);
        else expect(() => assertOneSlot('test', keys)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
