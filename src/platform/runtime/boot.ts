import { type Config, ConfigError, loadConfig } from '../config/index.js';
import { createLogger, type Logger, processLogOutput, quietStdStreams, safeWriter } from '../log/index.js';

/**
 * Reads the environment once for an entry point. Invalid configuration prints every
 * problem and exits non-zero before anything connects.
 */
export function boot(name: string): { config: Config; log: Logger } {
  // First, so that no write to a closed stdout or stderr can ever surface as an exception.
  quietStdStreams();
  try {
    const config = loadConfig(process.env);
    const log = createLogger(config.logLevel, processLogOutput(config.logBufferChars, { process: name })).child({ process: name });
    process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
    return { config, log };
  } catch (err) {
    if (err instanceof ConfigError) {
      safeWriter(2).write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
