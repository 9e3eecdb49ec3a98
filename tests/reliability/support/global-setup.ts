/**
 * Once for the whole suite: the build must exist (the suite never builds), and a PostgreSQL
 * server must be reachable; its address is handed to the test files with `inject('postgresUrl')`.
 */
import fs from 'node:fs/promises';
import type { TestProject } from 'vitest/node';
import { ensurePostgres } from './postgres.ts';
import { requireBuild, WORK_DIR } from './settings.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    postgresUrl: string;
  }
}

export default async function setup(project: TestProject) {
  requireBuild();
  await fs.rm(WORK_DIR, { recursive: true, force: true });
  await fs.mkdir(WORK_DIR, { recursive: true });
  const postgres = await ensurePostgres();
  project.provide('postgresUrl', postgres.url);
  return async () => {
    await postgres.stop();
  };
}
