/**
 * Servers started at the same instant on one empty PostgreSQL (issue #21): each opens the archive
 * as `npm start` does (migrate, sweep, seed if empty), and all come up, with one seed. Without the
 * preparation lock, two at once failed on `CREATE EXTENSION` and on the seed's unique keys.
 * PostgreSQL only: an embedded database has a single owner by construction.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { count } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { alexandrias, categories, imports } from '../../src/lib/server/db/schema.ts';
import { adminQuery, databaseUrl } from '../setup/database-templates.ts';
import { FIXTURES_DIR } from '../helpers/fixtures.ts';
import { createTestDatabase, MIGRATIONS_DIR, testEngines } from '../helpers/database.ts';

describe.runIf(testEngines().includes('postgres'))('servers starting together on an empty PostgreSQL', () => {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `archivo_together_${randomUUID().replaceAll('-', '')}`;
  const dirs: string[] = [];
  const archives: Archive[] = [];
  afterAll(async () => {
    await Promise.all(archives.map((archive) => archive.close()));
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name}`);
    await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
  });

  it('all come up, one migrates and seeds, the others wait and find it done', async () => {
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    const start = async () => {
      const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-together-'));
      dirs.push(dataDir);
      const config = readConfig({
        ...process.env,
        DATABASE_URL: databaseUrl(serverUrl, name),
        ARCHIVE_DATA_DIR: dataDir,
        ARCHIVE_FIXTURES_DIR: FIXTURES_DIR,
        ARCHIVE_MIGRATIONS_DIR: MIGRATIONS_DIR,
      });
      const archive = await openArchive({ config, seedIfEmpty: true });
      archives.push(archive);
      return archive;
    };
    const [first] = await Promise.all([start(), start(), start()]);
    // One seed: exactly what a single seed makes (the tests' seeded template), not two of it.
    const single = await createTestDatabase('postgres', 'seeded');
    try {
      for (const table of [categories, imports, alexandrias]) {
        const expected = (await single.db.select({ n: count() }).from(table))[0]!.n;
        expect(expected).toBeGreaterThan(0);
        for (const archive of archives) expect((await archive.db.select({ n: count() }).from(table))[0]!.n).toBe(expected);
      }
    } finally {
      await single.destroy();
    }
    expect(first!.engine).toBe('postgres');
  }, 240_000);
});
