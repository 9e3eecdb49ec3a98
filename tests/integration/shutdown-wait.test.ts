/**
 * A server stopped while, as an upgrade, it waits for the older servers' leases: it gives up the
 * wait at once instead of holding its shutdown up for minutes (scripts/start.ts allows itself 30 s).
 * Its own process state (src/lib/server/shutdown.ts), so a file of its own.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverInstances, waitForOlderInstances } from '../../src/lib/server/instances/index.ts';
import { beginShutdown, shutdownBegun } from '../../src/lib/server/shutdown.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';

describe.each(testEngines())('the wait for older servers on %s', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  it('ends as soon as this process begins to shut down', async () => {
    // An older server killed a moment ago: its lease has a minute left.
    await database.db.insert(serverInstances).values({ id: randomUUID(), hostname: 'viejo', pid: 4242, leaseUntil: sql`now() + interval '1 minute'` });
    const waiting = waitForOlderInstances(database.db, { pollMs: 50 }).then(() => 'migrated', (error: Error) => error.message);
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!shutdownBegun()) beginShutdown();
    // Not the lease's end (a minute away, past the test's time limit): the shutdown.
    expect(await waiting).toMatch(/El servidor se detiene/);
  });
});
