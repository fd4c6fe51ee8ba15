import type { Clock } from '../../billing/index.js';
import type { KeyCollections } from './key-collections.js';
import { keyInfo } from './key-info.js';
import { keyLimitFigures, type KeyLimitFigures, type KeyLiveUsage } from './limit-room.js';
import type { KeyDoc } from './key-types.js';

/**
 * What routes read about a key beyond the key itself: `GET /v1/key`'s view and the figures of
 * every limit that applies to it (the quote's rooms are computed from the same figures).
 */
export class KeyReads {
  constructor(
    private readonly c: KeyCollections,
    private readonly clock: Clock,
  ) {}

  /** The key as `GET /v1/key` shows it: spend, remaining room and every limit's use. */
  info(key: KeyDoc, account: { readonly free_tier: boolean }, live: KeyLiveUsage) {
    return keyInfo(this.c, this.clock, key, account, live);
  }

  /** The key's own spend and each cap's figures for its key, account and named end user, now. */
  limitFigures(key: KeyDoc, live: KeyLiveUsage): Promise<KeyLimitFigures> {
    return keyLimitFigures(this.c, this.clock(), key, live);
  }
}
