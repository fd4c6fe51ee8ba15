/**
 * Prometheus metrics of the gateway: one registry with the process metrics and what the domain
 * modules report through their observer hooks.
 * This file is the module's face: code outside the module imports from here only.
 */
export { Metrics } from './metrics.js';
