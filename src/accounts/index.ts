/**
 * Accounts and their API keys: creation, hashing, views, limits as configured.
 * This file is the module's face: code outside the module imports from here only.
 */
export { accountById, accountCollections, type AccountCollections, ensureAccountIndexes, ONLY_ACCOUNTS } from './account-collection.js';
export { AccountService } from './account-service.js';
export type { AccountDoc, ChainHead } from './account-types.js';
export { toAccountDetailView, toAccountView } from './account-view.js';
export { KeyAuthenticator } from './keys/key-auth.js';
export { ensureKeyIndexes, keyCollections, type KeyCollections } from './keys/key-collections.js';
export { moveLegacySpend } from './keys/legacy-spend.js';
export { createKeySchema, patchKeySchema } from './keys/key-input-schema.js';
export { KeyReads } from './keys/key-reads.js';
export { isWellFormedKey } from './keys/key-secret.js';
export { type KeyEventSink, KeyService } from './keys/key-service.js';
export type { KeyDoc, KeyRole, KeySpendDoc, SharedLimits } from './keys/key-types.js';
export { toKeyView } from './keys/key-view.js';
export { capRooms, type KeyLiveUsage, periodSpend } from './keys/limit-room.js';
export { LIFETIME_PERIOD, lifetimeSpend, lifetimeSpendId } from './keys/lifetime-spend.js';
export { sharedLimitsSchema } from './keys/limits-schema.js';
export { toSharedLimits } from './keys/shared-limits.js';
