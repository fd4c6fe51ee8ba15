/**
 * Logging: the pino logger and bounded, redacting output.
 * This file is the module's face: code outside the module imports from here only.
 */
export type { LogOutputStats } from './bounded-output.js';
export { createLogger, flatLineLogger, type Logger, logOutputStats, processLogOutput } from './logger.js';
export { quietStdStreams, safeWriter } from './safe-output.js';
