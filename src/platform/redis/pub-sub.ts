import { isCluster, type Redis } from './redis.js';

/**
 * Publishes on a channel. On a cluster it is sharded pub/sub (SPUBLISH): the message goes to
 * the shard that owns the channel's slot instead of being copied to every node, which matters
 * for job replies that carry results of up to 256 KB.
 */
export async function publishMessage(redis: Redis, channel: string, message: string): Promise<void> {
  if (isCluster(redis)) await redis.spublish(channel, message);
  else await redis.publish(channel, message);
}

/**
 * Listens on a channel with a dedicated connection (see `subscriberConnection`): SSUBSCRIBE on
 * a cluster, SUBSCRIBE on a single Redis. Resolves once the subscription is in place.
 */
export async function listenOn(subscriber: Redis, channel: string, handler: (message: string) => void): Promise<void> {
  if (isCluster(subscriber)) {
    subscriber.on('smessage', (from: string, message: string) => {
      if (from === channel) handler(message);
    });
    await subscriber.ssubscribe(channel);
    return;
  }
  subscriber.on('message', (from: string, message: string) => {
    if (from === channel) handler(message);
  });
  await subscriber.subscribe(channel);
}
