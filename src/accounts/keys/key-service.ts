import { GatewayError } from '../../platform/errors/index.js';
import { newId } from '../../platform/util/index.js';
import type { CreateKeyInput, PatchKeyInput } from './key-input-schema.js';
import { mintSecret } from './key-secret.js';
import type { KeyDoc, KeyLimits, SpendCaps } from './key-types.js';
import { withLifetimeSpend } from './lifetime-spend.js';
import type { KeyCollections } from './key-collections.js';
import { definedCaps, toSharedLimits } from './shared-limits.js';

/** A key just minted, with its raw secret (returned to the caller once, never stored). */
export interface MintedKey {
  doc: KeyDoc;
  raw: string;
}

type LimitsInput = NonNullable<CreateKeyInput['limits']>;

function toLimits(input: LimitsInput): KeyLimits {
  const limits: KeyLimits = {};
  if (input.spend_cap_usd) limits.spend_cap = definedCaps<SpendCaps>(input.spend_cap_usd);
  if (input.rpm !== undefined) limits.rpm = input.rpm;
  if (input.tpm !== undefined) limits.tpm = input.tpm;
  if (input.concurrent_streams !== undefined) limits.concurrent_streams = input.concurrent_streams;
  if (input.models !== undefined) limits.models = input.models;
  if (input.max_cost_per_request !== undefined) limits.max_cost_per_request = input.max_cost_per_request;
  if (input.end_user_limits !== undefined) limits.end_user_limits = toSharedLimits(input.end_user_limits);
  if (input.cache_ttl_seconds !== undefined) limits.cache_ttl_seconds = input.cache_ttl_seconds;
  return limits;
}

/** Told of key changes an account holder may want to hear of (webhooks); must not throw. */
export interface KeyEventSink {
  disabled(key: KeyDoc): void;
  rotated(key: KeyDoc): void;
}

/** Minting, reading and changing keys. Changes are announced so caches drop them at once. */
export class KeyService {
  constructor(
    private readonly c: KeyCollections,
    private readonly onChange: (key: KeyDoc) => Promise<void> = async () => {},
    private readonly events?: KeyEventSink,
  ) {}

  /** Mints a key for an account; the raw key is in the result and nowhere else. */
  async mint(accountId: string, input: CreateKeyInput): Promise<MintedKey> {
    const secret = mintSecret();
    const doc: KeyDoc = {
      _id: newId('key'),
      account_id: accountId,
      hash: secret.hash,
      name: input.name,
      label: secret.label,
      role: input.role,
      disabled: false,
      expires_at: input.expires_at ?? null,
      limits: toLimits(input.limits),
      spend: 0n,
      created_at: new Date(),
    };
    await this.c.keys.insertOne(doc);
    return { doc, raw: secret.raw };
  }

  /** One key; 404 when missing or (if given) owned by another account. */
  async get(keyId: string, accountId?: string): Promise<KeyDoc> {
    return this.shown(await this.owned(keyId, accountId));
  }

  /** A key as answered: `spend` is its whole lifetime spend. */
  private async shown(doc: KeyDoc): Promise<KeyDoc> {
    const [shown] = await withLifetimeSpend(this.c, [doc]);
    return shown!;
  }

  private async owned(keyId: string, accountId: string | undefined): Promise<KeyDoc> {
    const doc = await this.c.keys.findOne({ _id: keyId });
    if (!doc || (accountId !== undefined && doc.account_id !== accountId)) {
      throw new GatewayError('not_found', `No key '${keyId}'`, { param: 'key_id' });
    }
    return doc;
  }

  /** The keys of an account, newest first. */
  async list(accountId: string): Promise<KeyDoc[]> {
    return withLifetimeSpend(this.c, await this.c.keys.find({ account_id: accountId }).sort({ created_at: -1 }).limit(1000).toArray());
  }

  /** Applies an update; `limits` replaces the whole set. */
  async patch(keyId: string, input: PatchKeyInput, accountId?: string): Promise<KeyDoc> {
    const current = await this.owned(keyId, accountId);
    const set: Partial<KeyDoc> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.disabled !== undefined) set.disabled = input.disabled;
    if (input.limits !== undefined) set.limits = toLimits(input.limits);
    if (input.expires_at !== undefined) set.expires_at = input.expires_at;
    const updated = await this.c.keys.findOneAndUpdate({ _id: current._id }, { $set: set }, { returnDocument: 'after' });
    if (!updated) throw new GatewayError('not_found', `No key '${keyId}'`, { param: 'key_id' });
    await this.onChange(updated);
    if (updated.disabled && !current.disabled) this.events?.disabled(updated);
    return this.shown(updated);
  }

  /** Deletes a key for good. */
  async remove(keyId: string, accountId?: string): Promise<void> {
    const current = await this.owned(keyId, accountId);
    await this.c.keys.deleteOne({ _id: current._id });
    await this.onChange(current);
  }

  /**
   * Replaces a key's secret and nothing else: the id, spend, limits and history stay, so a
   * rotation never resets a spend cap. The old secret stops working at once on every process
   * (its hash is announced for invalidation).
   */
  async rotate(keyId: string, accountId?: string): Promise<MintedKey> {
    const old = await this.owned(keyId, accountId);
    const secret = mintSecret();
    const updated = await this.c.keys.findOneAndUpdate(
      { _id: old._id },
      { $set: { hash: secret.hash, label: secret.label } },
      { returnDocument: 'after' },
    );
    if (!updated) throw new GatewayError('not_found', `No key '${keyId}'`, { param: 'key_id' });
    // The old hash is the one caches hold: announcing it ends the old secret everywhere.
    await this.onChange(old);
    this.events?.rotated(updated);
    return { doc: await this.shown(updated), raw: secret.raw };
  }
}
