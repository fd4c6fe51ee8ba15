import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from '../platform/redis/index.js';

/** How long a console session lives after sign-in. */
export const SESSION_TTL_SECONDS = 8 * 60 * 60;

/** What a session is allowed to act as: the operator, or one account through a management key. */
export type SessionRecord =
  | { mode: 'operator'; token_hash: string; created_at: string }
  | { mode: 'account'; account_id: string; key_id: string; key_hash: string; created_at: string };

/** A new session: the id for the cookie (never stored) and when it ends. */
export interface NewSession {
  id: string;
  expiresAt: Date;
}

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * Console sessions in Redis with a TTL. The key is the SHA-256 of the session id, so a read
 * of Redis (a dump, a replica) does not yield a usable cookie.
 */
export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds = SESSION_TTL_SECONDS,
  ) {}

  /** Stores a record under a fresh 256-bit random id. */
  async create(record: SessionRecord): Promise<NewSession> {
    const id = randomBytes(32).toString('base64url');
    await this.redis.set(this.key(id), JSON.stringify(record), 'EX', this.ttlSeconds);
    return { id, expiresAt: new Date(Date.now() + this.ttlSeconds * 1000) };
  }

  /** The record of a live session, or undefined (unknown, expired or malformed id). */
  async read(id: string): Promise<SessionRecord | undefined> {
    if (!SESSION_ID.test(id)) return undefined;
    const raw = await this.redis.get(this.key(id));
    return raw === null ? undefined : (JSON.parse(raw) as SessionRecord);
  }

  /** Ends a session. */
  async delete(id: string): Promise<void> {
    if (SESSION_ID.test(id)) await this.redis.del(this.key(id));
  }

  private key(id: string): string {
    return `${this.prefix}:console:session:${sha256(id)}`;
  }
}

/** SHA-256 (hex) of the operator token, kept in operator sessions so a new token ends them. */
export function operatorTokenHash(token: string): string {
  return sha256(`operator:${token}`);
}
