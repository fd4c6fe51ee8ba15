/**
 * Process metrics (event-loop delay, log output) on a registry the caller owns. They know
 * nothing of the gateway's domains, so any process can carry them.
 * This file is the module's face: code outside the module imports from here only.
 */
export { EventLoopDelayMetrics } from './event-loop-delay.js';
export { registerLogMetrics } from './log-metrics.js';
