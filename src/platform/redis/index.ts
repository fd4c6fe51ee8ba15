/**
 * Redis connections (single node or cluster), key slots and pub/sub.
 * This file is the module's face: code outside the module imports from here only.
 */
export { createInvalidationBus, type InvalidationBus } from './invalidation-bus.js';
export { assertOneSlot, keySlot } from './key-slot.js';
export { listenOn, publishMessage } from './pub-sub.js';
export { dataIdentity, type RedisShard, redisShards, SLOT_COUNT } from './redis-shards.js';
export { connectRedis, createRedis, createSubscriber, type Redis, type RedisTarget, WAIT_IT_OUT, waitReady } from './redis.js';
