import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { accountById, type AccountCollections } from '../accounts/index.js';
import { GatewayError } from '../platform/errors/index.js';
import type { CreateEndpointInput, PatchEndpointInput } from './webhook-schema.js';
import { mintWebhookSecret } from './webhook-signature.js';
import type { WebhookCollections } from './webhook-collections.js';
import type { EndpointDoc, WebhookEventType } from './webhook-types.js';

/** Checks an endpoint URL against the outbound rules; throws a 400 naming `url` when refused. */
export type EndpointUrlCheck = (url: string) => Promise<void>;

/** An endpoint with its secret, returned once (creation, rotation). */
export interface EndpointWithSecret {
  doc: EndpointDoc;
  secret: string;
}

/** How long a rotated-out secret still signs deliveries, so receivers can roll over. */
const PREVIOUS_SECRET_MS = 24 * 3600 * 1000;
/** How long a process trusts its cached list of an account's endpoints. */
const CACHE_TTL_MS = 5_000;
const MAX_PER_ACCOUNT = 20;

function notFound(id: string): GatewayError {
  return new GatewayError('not_found', `No webhook endpoint '${id}'`, { param: 'webhook_id' });
}

/** Endpoints of accounts: registration (URL checked), changes, secret rotation, lookup by event. */
export class EndpointService {
  private readonly cache = new LRUCache<string, EndpointDoc[]>({ max: 10_000, ttl: CACHE_TTL_MS, ttlResolution: 0 });

  constructor(
    private readonly c: WebhookCollections & AccountCollections,
    private readonly checkUrl: EndpointUrlCheck,
  ) {}

  /** Registers an endpoint; its secret is in the result and shown nowhere else. */
  async create(accountId: string, input: CreateEndpointInput): Promise<EndpointWithSecret> {
    await this.account(accountId);
    await this.checkUrl(input.url);
    const count = await this.c.webhookEndpoints.countDocuments({ account_id: accountId });
    if (count >= MAX_PER_ACCOUNT) throw new GatewayError('invalid_request', `An account may have at most ${MAX_PER_ACCOUNT} webhook endpoints`, { param: 'url' });
    const now = new Date();
    const doc: EndpointDoc = {
      _id: `wh_${randomBytes(12).toString('hex')}`,
      account_id: accountId,
      url: input.url,
      description: input.description ?? null,
      events: input.events ?? [],
      disabled: false,
      secret: mintWebhookSecret(),
      created_at: now,
      updated_at: now,
    };
    await this.c.webhookEndpoints.insertOne(doc);
    this.cache.delete(accountId);
    return { doc, secret: doc.secret };
  }

  /** The endpoints of an account, newest first. */
  list(accountId: string): Promise<EndpointDoc[]> {
    return this.c.webhookEndpoints.find({ account_id: accountId }).sort({ created_at: -1 }).limit(MAX_PER_ACCOUNT).toArray();
  }

  /** One endpoint; 404 when missing or owned by another account than `accountId` (if given). */
  async get(id: string, accountId?: string): Promise<EndpointDoc> {
    const doc = await this.c.webhookEndpoints.findOne({ _id: id });
    if (!doc || (accountId !== undefined && doc.account_id !== accountId)) throw notFound(id);
    return doc;
  }

  /** Changes URL (checked again), description, events or the disabled flag. */
  async patch(id: string, input: PatchEndpointInput, accountId?: string): Promise<EndpointDoc> {
    const current = await this.get(id, accountId);
    if (input.url !== undefined) await this.checkUrl(input.url);
    const set: Partial<EndpointDoc> = { updated_at: new Date() };
    if (input.url !== undefined) set.url = input.url;
    if (input.description !== undefined) set.description = input.description;
    if (input.events !== undefined) set.events = input.events;
    if (input.disabled !== undefined) set.disabled = input.disabled;
    const updated = await this.c.webhookEndpoints.findOneAndUpdate({ _id: current._id }, { $set: set }, { returnDocument: 'after' });
    if (!updated) throw notFound(id);
    this.cache.delete(current.account_id);
    return updated;
  }

  /** Deletes an endpoint; deliveries still queued for it are dropped when they come up. */
  async remove(id: string, accountId?: string): Promise<void> {
    const current = await this.get(id, accountId);
    await this.c.webhookEndpoints.deleteOne({ _id: current._id });
    this.cache.delete(current.account_id);
  }

  /** A new secret; the old one keeps signing (as a second signature) for a day. */
  async rotate(id: string, accountId?: string): Promise<EndpointWithSecret> {
    const current = await this.get(id, accountId);
    const secret = mintWebhookSecret();
    const now = new Date();
    const set = { secret, previous_secret: current.secret, previous_until: new Date(now.getTime() + PREVIOUS_SECRET_MS), updated_at: now };
    const updated = await this.c.webhookEndpoints.findOneAndUpdate({ _id: current._id }, { $set: set }, { returnDocument: 'after' });
    if (!updated) throw notFound(id);
    return { doc: updated, secret };
  }

  /** Enabled endpoints of an account that take this event type (cached for a few seconds). */
  async subscribers(accountId: string, type: WebhookEventType): Promise<EndpointDoc[]> {
    return (await this.enabled(accountId)).filter((e) => e.events.length === 0 || e.events.includes(type));
  }

  /** True when the account has any enabled endpoint (cheap: cached). */
  async any(accountId: string): Promise<boolean> {
    return (await this.enabled(accountId)).length > 0;
  }

  /** Sets the balance under which `balance.low` fires (null clears it). */
  async setBalanceLow(accountId: string, threshold: bigint | null): Promise<void> {
    const update = threshold === null ? { $unset: { balance_low_threshold: '' as const } } : { $set: { balance_low_threshold: threshold } };
    const res = await this.c.accounts.updateOne(accountById(accountId), update);
    if (res.matchedCount === 0) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
  }

  /** The account's `balance.low` threshold, nano-USD, or null. */
  async balanceLow(accountId: string): Promise<bigint | null> {
    return (await this.account(accountId)).balance_low_threshold ?? null;
  }

  private async enabled(accountId: string): Promise<EndpointDoc[]> {
    const cached = this.cache.get(accountId);
    if (cached) return cached;
    const found = await this.c.webhookEndpoints.find({ account_id: accountId, disabled: false }).limit(MAX_PER_ACCOUNT).toArray();
    this.cache.set(accountId, found);
    return found;
  }

  private async account(accountId: string) {
    const doc = await this.c.accounts.findOne(accountById(accountId), { projection: { balance_low_threshold: 1 } });
    if (!doc) throw new GatewayError('not_found', `No account '${accountId}'`, { param: 'account_id' });
    return doc;
  }
}
