import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { BoundedOutput } from '../../../../src/platform/log/bounded-output.js';
import { waitFor } from '../../../helpers/wait-for.js';

const dir = mkdtempSync(join(tmpdir(), 'fbx-log-out-'));
const fds: number[] = [];
afterEach(() => {
  while (fds.length > 0) closeSync(fds.pop() as number);
});
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

function fileOutput(name: string, maxChars: number): { out: BoundedOutput; text: () => string } {
  const path = join(dir, name);
  const fd = openSync(path, 'w');
  fds.push(fd);
  return { out: new BoundedOutput(fd, maxChars, { process: 'test' }), text: () => readFileSync(path, 'utf8') };
}

it('writes every line, in order, off the main thread; an exit flush waits for the last ones', () => {
  const { out, text } = fileOutput('all.log', 1_000_000);
  const lines = Array.from({ length: 2_000 }, (_, i) => `{"n":${i}}\n`);
  for (const line of lines) out.write(line);
  expect(out.stats()).toEqual({ dropped: 0, pending: lines.join('').length });
  out.flushSync(10_000);
  expect(text()).toBe(lines.join(''));
});

it('drops what does not fit, counts it, and reports it in one line once the writer caught up', async () => {
  const { out, text } = fileOutput('drops.log', 100);
  for (let i = 0; i < 50; i += 1) out.write(`{"line":${100 + i}}\n`);
  // 13 characters a line: 7 fit in 100, the other 43 are dropped at once.
  expect(out.stats()).toEqual({ dropped: 43, pending: 91 });
  await waitFor('the report of the dropped lines', () => text().includes('dropped_lines'));
  const written = text().trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(written.slice(0, 7).map((l) => l.line)).toEqual([100, 101, 102, 103, 104, 105, 106]);
  expect(written[7]).toMatchObject({ level: 40, process: 'test', dropped_lines: 43 });
  expect(written).toHaveLength(8);
  // Reported once: more lines that fit bring no second report. The report is in the file before
  // the writer's acknowledgement frees its room, so the next line waits for that.
  await waitFor('the writer to acknowledge the report', () => out.stats().pending === 0);
  out.write('{"line":"after"}\n');
  out.flushSync(10_000);
  expect(text().match(/dropped_lines/g)).toHaveLength(1);
  await waitFor('the writer to acknowledge everything', () => out.stats().pending === 0);
  expect(out.stats().dropped).toBe(43);
});
