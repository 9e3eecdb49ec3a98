/**
 * An upgrade on a shared PostgreSQL (the README's "Actualizar"): a server of the next version does
 * not migrate while a process of the older one still runs on the database; it waits out the lease
 * of one that ended without deregistering, then migrates. PostgreSQL only: the embedded database
 * has a single owner, so no older process can be running on it.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../src/lib/server/archive.ts';
import { readConfig } from '../../src/lib/server/config.ts';
import { OlderVersionRunningError, serverInstances } from '../../src/lib/server/instances/index.ts';
import { adminQuery, databaseUrl } from '../setup/database-templates.ts';
import { MIGRATIONS_DIR, nextVersionMigrations, testEngines } from '../helpers/database.ts';

describe.runIf(testEngines().includes('postgres'))('an upgrade on a shared PostgreSQL', () => {
  const serverUrl = process.env.TEST_DATABASE_URL!;
  const name = `archivo_upgrade_${randomUUID().replaceAll('-', '')}`;
  const dirs: string[] = [];
  const open: Archive[] = [];
  afterAll(async () => {
    await Promise.all(open.map((archive) => archive.close().catch(() => undefined)));
    await adminQuery(serverUrl, `DROP DATABASE IF EXISTS ${name}`);
    await Promise.all(dirs.map((dir) => fs.rm(dir, { recursive: true, force: true })));
  });

  const start = async (migrationsDir: string) => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'archivo-upgrade-'));
    dirs.push(dataDir);
    const config = readConfig({
      ...process.env,
      DATABASE_URL: databaseUrl(serverUrl, name),
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_MIGRATIONS_DIR: migrationsDir,
      // Renewed every half second: a running server shows itself within a poll or two.
      ARCHIVE_INSTANCE_LEASE_MS: '2000',
    });
    const archive = await openArchive({ config });
    open.push(archive);
    return archive;
  };

  it('waits for the older version to stop, or for the lease of one that died, before migrating', async () => {
    await adminQuery(serverUrl, `CREATE DATABASE ${name}`);
    const next = await nextVersionMigrations();
    dirs.push(next.dir);
    const older = await start(MIGRATIONS_DIR);
    /** Whether the next version's migration ran on the database. */
    const ran = async (archive: Archive) =>
      ((await archive.db.execute(sql`select to_regclass('public.next_version_ran') is not null as ran`)) as unknown as { rows: Array<{ ran: boolean }> }).rows[0]!.ran;

    // The older version runs, renewing its lease: the next one stops, naming it, and changes nothing.
    const refused = await start(next.dir).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(OlderVersionRunningError);
    expect((refused as Error).message).toMatch(new RegExp(`siguen en marcha .*\\(1: ${os.hostname()}, pid ${process.pid}\\)`));
    expect(await ran(older)).toBe(false);

    // Stopped, and another killed a moment ago (its row left, its lease running out): the next
    // version waits for that lease, then migrates.
    await older.close();
    open.splice(open.indexOf(older), 1);
    const { db } = await start(MIGRATIONS_DIR);
    await db.insert(serverInstances).values({ id: randomUUID(), hostname: 'killed', pid: 4242, leaseUntil: sql`now() + interval '1500 milliseconds'` });
    await open.pop()!.close();
    const upgraded = await start(next.dir);
    expect(await ran(upgraded)).toBe(true);
  }, 60_000);
});
