import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * A process that writes 2,000 lines through safeWriter(1), a pino logger and console.log, with a
 * reader that goes away after the first chunk; then reports on stderr how it fared, and exits.
 */
const script = `
  import { safeWriter, quietStdStreams } from './src/platform/log/safe-output.ts';
  import { createLogger } from './src/platform/log/logger.ts';
  quietStdStreams();
  const out = safeWriter(1);
  const log = createLogger('info');
  for (let i = 0; i < 2000; i += 1) {
    out.write('line ' + i + ' ' + 'x'.repeat(200) + '\\n');
    log.info({ i }, 'logged');
    console.log('console', i);
    if (i % 100 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  process.stderr.write('finished closed=' + out.closed + '\\n');
`;

describe('safe output', () => {
  it('ends writing quietly when the reader of stdout goes away, and the process carries on and exits', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout?.once('data', () => child.stdout?.destroy());
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(err).toContain('finished closed=true');
    expect(err).not.toContain('EPIPE');
    expect(code).toBe(0);
  });
});
