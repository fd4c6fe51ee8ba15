import { pino, type Logger, type DestinationStream } from 'pino';
import { BoundedOutput, type LogOutputStats } from './bounded-output.js';

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
 * The top-level paths of {@link REDACT_PATHS}: enough for lines whose fields are all known and
 * flat, and far cheaper per line than the wildcard paths, which walk every nested object.
 */
export const FLAT_REDACT_PATHS: readonly string[] = REDACT_PATHS.filter((p) => !/[.*[]/.test(p));

/**
 * A logger for lines of fixed, flat fields (the access log: one line per request), redacting
 * only {@link FLAT_REDACT_PATHS}. Any other line goes through the root logger's full redaction.
 */
export function flatLineLogger(log: Logger): Logger {
  return log.child({}, { redact: { paths: [...FLAT_REDACT_PATHS], censor: '[redacted]' } });
}

/** Default bound of the log output's queue, in characters (a few thousand lines). */
export const DEFAULT_LOG_BUFFER_CHARS = 4 * 1024 * 1024;

let stdout: BoundedOutput | undefined;

/**
 * The process's stdout as log output: one per process, bounded and written off the main thread
 * (see BoundedOutput), flushed for at most a second when the process exits. The first call's
 * settings hold.
 */
export function processLogOutput(maxChars = DEFAULT_LOG_BUFFER_CHARS, fields: Readonly<Record<string, string>> = {}): BoundedOutput {
  if (stdout === undefined) {
    const output = new BoundedOutput(1, maxChars, fields);
    process.once('exit', () => output.flushSync());
    stdout = output;
  }
  return stdout;
}

/** What the process's stdout log output dropped and holds, once it exists. */
export function logOutputStats(): LogOutputStats | undefined {
  return stdout?.stats();
}

/**
 * Builds the root logger; `destination` lets tests capture output. By default lines go to
 * {@link processLogOutput}: a reader that is slow, stalled or gone never holds up the process;
 * what it could not take is dropped, counted and reported.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      serializers: { err: pino.stdSerializers.err },
    },
    destination ?? processLogOutput(),
  );
}

export type { Logger };
