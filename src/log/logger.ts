import { pino, type Logger, type DestinationStream } from 'pino';

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
  'secrets',
];

/** Builds the root logger; `destination` lets tests capture output. */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    destination,
  );
}

export type { Logger };
