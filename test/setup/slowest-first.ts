import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Where the measured durations live (written by `npm run test:durations`). */
export const DURATIONS_FILE = 'test/setup/file-durations.json';

/**
 * Orders test files slowest first, by the seconds each took in a measured full run. Vitest
 * does this from its own results cache, which a fresh clone (CI) lacks: it then runs the
 * largest files first, and a short file that takes minutes (the `npm start` lifecycle suite
 * boots the stores eight times) started last and ran alone at the end, one core idle. Files
 * the measurement does not know yet go first, as vitest runs unknown files first.
 */
export class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const path = join(this.ctx.config.root, DURATIONS_FILE);
    const measured = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, number>) : {};
    const seconds = (file: TestSpecification): number => measured[relative(this.ctx.config.root, file.moduleId)] ?? Number.POSITIVE_INFINITY;
    return [...files].sort((a, b) => seconds(b) - seconds(a));
  }
}
