import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

/**
 * Writes each test file's wall time, in seconds, from a vitest JSON report (`vitest run
 * --reporter=json --outputFile=<report>`) to the file the test sequencer orders by.
 * Usage: tsx scripts/test/test-durations.ts <report.json>
 */
const [report] = process.argv.slice(2);
if (report === undefined) throw new Error('usage: test-durations.ts <vitest JSON report>');
const { testResults } = JSON.parse(readFileSync(report, 'utf8')) as { testResults: Array<{ name: string; startTime: number; endTime: number }> };
const durations = Object.fromEntries(
  testResults
    .map((file) => [relative(process.cwd(), file.name), Math.round((file.endTime - file.startTime) / 100) / 10] as const)
    .sort(([, a], [, b]) => b - a),
);
writeFileSync('test/setup/file-durations.json', `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${testResults.length} files measured`);
