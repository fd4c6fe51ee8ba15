import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createLogger, type Logger } from '../log/logger.js';

/**
 * Reads the environment once for an entry point. Invalid configuration prints every
 * problem and exits non-zero before anything connects.
 */
export function boot(name: string): { config: Config; log: Logger } {
  try {
    const config = loadConfig(process.env);
    const log = createLogger(config.logLevel).child({ process: name });
    process.on('unhandledRejection', (err) => log.error({ err }, 'unhandled rejection'));
    return { config, log };
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}
