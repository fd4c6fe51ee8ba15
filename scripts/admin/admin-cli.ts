import { parseArgs } from 'node:util';
import { createDeps } from '../../src/deps.js';
import { isGatewayError, serializeError } from '../../src/platform/errors/index.js';
import { boot } from '../../src/platform/runtime/index.js';
import { COMMANDS } from './admin-commands.js';

function usage(): string {
  return ['Usage: npm run admin -- <command> [args]', '', ...Object.entries(COMMANDS).map(([n, c]) => `  ${n} ${c.usage}`)].join('\n');
}

/** Entry point of `npm run admin -- …`; prints JSON results, errors in the API's shape. */
async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? COMMANDS[name] : undefined;
  if (!command) {
    process.stderr.write(`${usage()}\n`);
    return 2;
  }
  const { values, positionals } = parseArgs({ args: rest, allowPositionals: true, strict: false });
  const options = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, typeof v === 'string' ? v : undefined]));
  const { config, log } = boot('admin');
  // Operator commands touch accounts, keys and models, never the job queue.
  const deps = await createDeps(config, log, { jobs: false });
  try {
    const result = await command.run(deps, { positionals, options });
    process.stdout.write(`${JSON.stringify(result, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)}\n`);
    return 0;
  } catch (err) {
    if (!isGatewayError(err)) throw err;
    process.stderr.write(`${JSON.stringify(serializeError(err))}\n`);
    return 1;
  } finally {
    await deps.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
