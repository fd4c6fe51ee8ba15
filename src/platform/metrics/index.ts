/**
 * Prometheus metrics.
 * This file is the module's face: code outside the module imports from here only.
 */
export { Metrics } from './metrics.js';
