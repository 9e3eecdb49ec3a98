/**
 * Where the reliability suite runs: its ports, folders and knobs. Ports and folders are its own,
 * apart from those the other test suites use (4399-4402 and 54329-54332), so they can run together.
 */
import fs from 'node:fs';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../../..');
export { FIXTURES_DIR } from '../../helpers/fixtures.ts';

/** One port per part, so a server left behind by one part never answers another's requests. */
export const PORTS = { hostile: 4600, crash: 4601, load: 4602, harvestCrash: 4603, loadOther: 4604, crashOther: 4605, shutdown: 4606, taken: 4607, startup: 4608 } as const;

/** The PostgreSQL server the suite starts when `RELIABILITY_DATABASE_URL` names none. */
export const OWN_POSTGRES = { port: 54340, dir: '/tmp/reliability-pg' } as const;

/** Data folders (blocks, staging) and server logs of each run, outside the project. */
export const WORK_DIR = '/tmp/reliability-run';

/** Seconds the load test runs (60 in CI; shorter locally with `RELIABILITY_SECONDS`). */
export const LOAD_SECONDS = positiveNumber(process.env.RELIABILITY_SECONDS, 60);

/** Whether failures already diagnosed (`known: 'bug-N'`) may pass while they are being fixed. */
export const ALLOW_KNOWN = ['1', 'true', 'yes'].includes((process.env.RELIABILITY_ALLOW_KNOWN ?? '').toLowerCase());

function positiveNumber(value: string | undefined, fallback: number): number {
  const parsed = Number(value);
  return value && Number.isFinite(parsed) && parsed > 0 ? parsed : fallback;
}

/** The built server the suite runs; it never builds it (CI runs it after `npm test`, which builds). */
export function requireBuild(root = ROOT): void {
  const entry = path.join(root, 'dist/server/entry.mjs');
  if (!fs.existsSync(entry)) {
    throw new Error(
      `Falta la compilación del archivo (${path.relative(process.cwd(), entry) || entry}): ` +
        'ejecute `npm run build` (o `npm test`, que compila) antes de `npm run test:reliability`.',
    );
  }
}
