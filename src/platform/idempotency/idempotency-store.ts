import { createHash } from 'node:crypto';
import type { Redis } from '../redis/index.js';
import { DEFAULT_LIMITS, type Claim, type Entry, type IdempotencyLimits, type StoredResponse } from './idempotency-types.js';
import type { ResponseBlobs } from './response-blobs.js';

/** Returns the entry already there, or sets the new one (with its TTL) and returns nil. */
const CLAIM = `local v = redis.call('GET', KEYS[1])
if v then return v end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false`;

/** Replaces (ARGV[2] non-empty) or deletes the entry, only while the caller still owns it. */
const SETTLE = `local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local d = cjson.decode(v)
if d.owner ~= ARGV[1] or d.s ~= 'run' then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1`;

type Script = (key: string, ...args: Array<string | number>) => Promise<unknown>;

/** What the store needs of a run that claimed a key. */
export interface ClaimRequest {
  fingerprint: string;
  owner: string;
  stream: boolean;
}

/**
 * Idempotency keys of inference requests, per account, in Redis: a claim marks a key running
 * (atomically, so of many concurrent requests with one key exactly one runs), a finished run
 * keeps its response for 24 h, and a refused or failed run frees the key. Bodies above the
 * inline bound are kept in MongoDB by reference.
 */
export class IdempotencyStore {
  private readonly claimScript: Script;
  private readonly settleScript: Script;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly blobs: ResponseBlobs,
    readonly limits: IdempotencyLimits = DEFAULT_LIMITS,
  ) {
    redis.defineCommand('fareboxIdemClaim', { numberOfKeys: 1, lua: CLAIM });
    redis.defineCommand('fareboxIdemSettle', { numberOfKeys: 1, lua: SETTLE });
    const commands = redis as unknown as Record<string, Script>;
    this.claimScript = commands.fareboxIdemClaim!.bind(redis);
    this.settleScript = commands.fareboxIdemSettle!.bind(redis);
  }

  /** Claims a key for a run, or says what holds it. */
  async claim(accountId: string, key: string, request: ClaimRequest): Promise<Claim> {
    const entry: Entry = { s: 'run', fp: request.fingerprint, owner: request.owner, stream: request.stream };
    const found = await this.claimScript(this.redisKey(accountId, key), JSON.stringify(entry), this.limits.runningMs);
    if (typeof found !== 'string') return { kind: 'claimed' };
    const held = JSON.parse(found) as Entry;
    if (held.fp !== request.fingerprint) return { kind: 'reused' };
    if (held.s === 'run') return { kind: 'running', stream: held.stream };
    return { kind: 'done', response: await this.responseOf(held), size: held.size };
  }

  /** Keeps the response of a finished run for replays. */
  async complete(accountId: string, key: string, request: ClaimRequest, response: StoredResponse): Promise<void> {
    const size = response.oversize ?? Buffer.byteLength(response.body, 'utf8');
    const entry: Entry = { s: 'done', fp: request.fingerprint, owner: request.owner, stream: request.stream, status: response.status, ctype: response.contentType, size };
    if (size <= this.limits.inlineBytes) entry.body = response.body;
    else if (size <= this.limits.maxBytes) {
      entry.ref = `${this.digest(accountId, key)}:${request.owner}`;
      await this.blobs.put(entry.ref, response.body, new Date(Date.now() + this.limits.keepMs));
    }
    await this.settleScript(this.redisKey(accountId, key), request.owner, JSON.stringify(entry), this.limits.keepMs);
  }

  /** Frees a key whose run was refused or failed, so a corrected request can run. */
  async abandon(accountId: string, key: string, owner: string): Promise<void> {
    await this.settleScript(this.redisKey(accountId, key), owner, '', 0);
  }

  private async responseOf(entry: Extract<Entry, { s: 'done' }>): Promise<StoredResponse | undefined> {
    const body = entry.body ?? (entry.ref ? await this.blobs.get(entry.ref) : undefined);
    return body === undefined ? undefined : { status: entry.status, contentType: entry.ctype, body, requestId: entry.owner };
  }

  /** The key itself is hashed: a client's key text is never a Redis key name. */
  private digest(accountId: string, key: string): string {
    return createHash('sha256').update(`${accountId}\n${key}`).digest('base64url');
  }

  private redisKey(accountId: string, key: string): string {
    return `${this.prefix}:idem:{${accountId}}:${this.digest(accountId, key)}`;
  }
}
