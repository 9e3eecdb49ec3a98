/**
 * The imports of uploads that died with their process (`sweepInterruptedUploads`): removed when
 * their owner on this host is gone or nobody touched them for long, kept while an owner may still
 * be running, on another host too.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../src/lib/server/db/index.ts';
import { imports } from '../../src/lib/server/db/schema.ts';
import { STALE_AFTER_MS, sweepInterruptedUploads } from '../../src/lib/server/uploads/imports.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';

/** A pid above Linux's largest (2^22): no process has it. */
const DEAD_PID = 4_194_305;
const WALLET = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';

describe.each(testEngines())('interrupted uploads on %s', (engine: Engine) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
  });
  afterAll(async () => {
    await database?.destroy();
  });

  async function uploadImport(owner: string, updatedAt = new Date()): Promise<number> {
    const [row] = await database.db
      .insert(imports)
      .values({ type: 'single', status: 'in_progress', documents: 1, walletAddress: WALLET, owner, updatedAt })
      .returning({ id: imports.id });
    return row!.id;
  }

  async function remaining(ids: number[]): Promise<number[]> {
    const rows = await database.db.select({ id: imports.id }).from(imports).where(eq(imports.status, 'in_progress'));
    return rows.map((row) => row.id).filter((id) => ids.includes(id)).sort((a, b) => a - b);
  }

  it('removes this host’s dead owners and stale imports, and keeps the live and the other hosts’ recent ones', async () => {
    const deadHere = await uploadImport(`web_1:${DEAD_PID}`);
    const aliveHere = await uploadImport(`web_1:${process.pid}`);
    // `_` is a LIKE wildcard: read as a pattern, `web_1:` would take this host's name for its own.
    const lookalikeHost = await uploadImport(`webX1:${DEAD_PID}`);
    const otherHostStale = await uploadImport(`web_2:${DEAD_PID}`, new Date(Date.now() - STALE_AFTER_MS - 60_000));

    const removed = await sweepInterruptedUploads(database.db, { hostname: 'web_1' });

    expect(await remaining([deadHere, aliveHere, lookalikeHost, otherHostStale])).toEqual([aliveHere, lookalikeHost]);
    expect(removed).toBe(2);
  });
});
