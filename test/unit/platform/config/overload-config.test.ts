import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/platform/config/config.js';

const BASE = { MONGODB_URI: 'mongodb://127.0.0.1:27017', REDIS_URL: 'redis://127.0.0.1:6379' };
/** The open streams one web is built to hold (DESIGN §9; the bench's open-streams row). */
const OPEN_STREAMS = 5_000;

describe('overload settings', () => {
  it('by default a web admits the open streams it is built to hold before its in-flight ceiling refuses one', () => {
    const { overload } = loadConfig(BASE);
    expect(overload.maxInFlight).toBeGreaterThan(OPEN_STREAMS);
  });

  it('takes the ceiling from SHED_MAX_IN_FLIGHT, 0 for none', () => {
    expect(loadConfig({ ...BASE, SHED_MAX_IN_FLIGHT: '100' }).overload.maxInFlight).toBe(100);
    expect(loadConfig({ ...BASE, SHED_MAX_IN_FLIGHT: '0' }).overload.maxInFlight).toBe(0);
  });
});
