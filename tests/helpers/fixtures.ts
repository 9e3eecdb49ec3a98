/**
 * Where the real fixtures are, for every test suite and the benchmark: `ARCHIVE_FIXTURES_DIR`, with
 * the archive's own default (`../shared/fixtures`, the `shared/` folder beside the clone). Resolved
 * from the project's root, not the working directory, so that a test finds them from wherever it runs.
 */
import path from 'node:path';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '../..');

export const FIXTURES_DIR = path.resolve(PROJECT_ROOT, process.env.ARCHIVE_FIXTURES_DIR || '../shared/fixtures');

/** A path inside the fixtures folder, e.g. `fixturePath('files/csv', name)`. */
export function fixturePath(...parts: string[]): string {
  return path.join(FIXTURES_DIR, ...parts);
}
