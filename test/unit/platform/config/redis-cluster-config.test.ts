import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../../src/platform/config/config.js';

const BASE = { MONGODB_URI: 'mongodb://127.0.0.1:27017' };

describe('Redis configuration', () => {
  it('keeps REDIS_URL alone as a single Redis', () => {
    const config = loadConfig({ ...BASE, REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.redis.clusterNodes).toBeUndefined();
    expect(config.redis.url).toBe('redis://127.0.0.1:6379');
  });

  it('starts with only REDIS_CLUSTER_NODES, host:port entries becoming redis:// seeds', () => {
    const config = loadConfig({ ...BASE, REDIS_CLUSTER_NODES: '127.0.0.1:7000, 127.0.0.1:7001,,127.0.0.1:7002' });
    expect(config.redis.clusterNodes).toEqual(['redis://127.0.0.1:7000', 'redis://127.0.0.1:7001', 'redis://127.0.0.1:7002']);
    expect(config.redisUrl).toBe('redis://127.0.0.1:7000');
  });

  it('keeps rediss:// seeds and the TLS verification setting', () => {
    const config = loadConfig({ ...BASE, REDIS_CLUSTER_NODES: 'rediss://cfg.example.cache.amazonaws.com:6379', REDIS_TLS_REJECT_UNAUTHORIZED: 'false' });
    expect(config.redis).toEqual({ url: 'rediss://cfg.example.cache.amazonaws.com:6379', tlsRejectUnauthorized: false, clusterNodes: ['rediss://cfg.example.cache.amazonaws.com:6379'] });
  });

  it('prefers the cluster seeds when both are set', () => {
    const config = loadConfig({ ...BASE, REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: '10.0.0.1:6379' });
    expect(config.redis.clusterNodes).toEqual(['redis://10.0.0.1:6379']);
  });

  it('refuses no Redis at all, and bad seeds, naming the variable', () => {
    expect(() => loadConfig(BASE)).toThrow(/REDIS_URL: required unless REDIS_CLUSTER_NODES/);
    for (const bad of ['http://10.0.0.1:6379', ' , ', 'not a host']) {
      const err = (() => {
        try {
          loadConfig({ ...BASE, REDIS_CLUSTER_NODES: bad });
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(err, bad).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems.join('\n'), bad).toMatch(/REDIS_CLUSTER_NODES/);
    }
  });
});
