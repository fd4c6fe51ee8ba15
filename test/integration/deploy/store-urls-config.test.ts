import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/platform/config/config.js';

const base = { NODE_ENV: 'production', ADMIN_TOKEN: 'an-admin-token-of-some-length', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('managed store URLs in the configuration', () => {
  it.each([
    'mongodb+srv://user:pass@cluster0.example.mongodb.net/?retryWrites=true&w=majority',
    'mongodb://a.example.net:27017,b.example.net:27017/?replicaSet=rs0&tls=true&authSource=admin',
    'mongodb://db.example.net:27017/?tls=true&tlsCAFile=/etc/ssl/mongo-ca.pem',
  ])('passes %s through to the driver unchanged', (uri) => {
    expect(loadConfig({ ...base, MONGODB_URI: uri }).mongoUri).toBe(uri);
  });

  it('rejects a MongoDB URI with another scheme', () => {
    expect(() => loadConfig({ ...base, MONGODB_URI: 'postgres://db.example.net/x' })).toThrow(ConfigError);
  });

  it('verifies rediss:// certificates unless REDIS_TLS_REJECT_UNAUTHORIZED is false', () => {
    const mongo = { MONGODB_URI: 'mongodb://127.0.0.1:27017' };
    const tls = { ...base, ...mongo, REDIS_URL: 'rediss://:secret@redis.example.net:6380' };
    expect(loadConfig(tls).redis).toEqual({ url: tls.REDIS_URL, tlsRejectUnauthorized: true });
    expect(loadConfig({ ...tls, REDIS_TLS_REJECT_UNAUTHORIZED: 'false' }).redis.tlsRejectUnauthorized).toBe(false);
    expect(loadConfig({ ...tls, REDIS_TLS_REJECT_UNAUTHORIZED: '0' }).redis.tlsRejectUnauthorized).toBe(false);
    expect(() => loadConfig({ ...tls, REDIS_TLS_REJECT_UNAUTHORIZED: 'no' })).toThrow(ConfigError);
  });
});
