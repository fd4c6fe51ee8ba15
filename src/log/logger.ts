import { pino, type Logger, type DestinationStream } from 'pino';
import { safeWriter } from './safe-output.js';

/** Paths whose values never reach a log line (keys, tokens, credentials). */
export const REDACT_PATHS = [
  'authorization',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'key',
  '*.key',
  'raw_key',
  '*.raw_key',
  'apiKey',
  '*.apiKey',
  'token',
  '*.token',
  'adminToken',
  'signingKey',
  '*.signingKey',
  'privateKey',
  '*.privateKey',
  'secrets',
];

/**
 * Builds the root logger; `destination` lets tests capture output. By default lines go to stdout
 * through {@link safeWriter}: a reader that went away ends logging quietly instead of crashing,
 * looping or holding up the exit (pino's own stdout stream retries a broken pipe forever when it
 * flushes at exit).
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    destination ?? safeWriter(1),
  );
}

export type { Logger };
