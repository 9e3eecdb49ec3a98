import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pins } from '../../src/lib/server/db/schema.ts';
import { localPinning, pinCid, pinCids } from '../../src/lib/server/pinning/index.ts';
import { storageStatus } from '../../src/lib/server/queries/index.ts';
import { cidOf } from '../../src/lib/server/storage/index.ts';
import { createTestDatabase, createTestStore, testEngines } from '../helpers/database.ts';

describe.each(testEngines())('local pinning on %s', (engine) => {
  let database: Awaited<ReturnType<typeof createTestDatabase>>;
  let blocks: Awaited<ReturnType<typeof createTestStore>>;
  beforeAll(async () => {
    database = await createTestDatabase(engine);
    blocks = await createTestStore();
  });
  afterAll(async () => {
    await database?.destroy();
    await blocks?.destroy();
  });

  it('pins a file that is in the store and records it', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode('Ley 200-04 de Libre Acceso a la Información Pública\n'));
    expect(await pinCid(database.db, localPinning(blocks.store), cid)).toBe('pinned');
    const status = await storageStatus(database.db, cid);
    expect(status.pins).toMatchObject([{ provider: 'local', status: 'pinned' }]);
  });

  it('cannot pin what the store does not hold, and says so', async () => {
    const { cid } = await cidOf(new TextEncoder().encode('nunca guardado'));
    expect(await pinCid(database.db, localPinning(blocks.store), cid)).toBe('failed');
    const [row] = await database.db.select().from(pins).where(eq(pins.cid, cid));
    expect(row?.status).toBe('failed');

    await blocks.store.add(new TextEncoder().encode('nunca guardado'));
    expect(await pinCid(database.db, localPinning(blocks.store), cid)).toBe('pinned');
    const rows = await database.db.select().from(pins).where(eq(pins.cid, cid));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.status).toBe('pinned');
  });

  it('leaves an unchanged pin untouched when asked again', async () => {
    const { cid } = await blocks.store.add(new TextEncoder().encode('sin cambios'));
    await pinCid(database.db, localPinning(blocks.store), cid);
    const [before] = await database.db.select().from(pins).where(eq(pins.cid, cid));
    await pinCid(database.db, localPinning(blocks.store), cid);
    const [after] = await database.db.select().from(pins).where(eq(pins.cid, cid));
    expect(after).toEqual(before);
  });

  it('pins several files at once as it pins one: held ones pinned, a missing one failed, an unchanged row untouched', async () => {
    const encode = (text: string) => new TextEncoder().encode(text);
    const { cid: held } = await blocks.store.add(encode('varios: guardado'));
    const { cid: before } = await blocks.store.add(encode('varios: anclado antes'));
    const { cid: missing } = await cidOf(encode('varios: nunca guardado'));
    await pinCid(database.db, localPinning(blocks.store), before);
    const [earlier] = await database.db.select().from(pins).where(eq(pins.cid, before));

    const statuses = await pinCids(database.db, localPinning(blocks.store), [held, before, missing, held]);
    expect(Object.fromEntries(statuses)).toEqual({ [held]: 'pinned', [before]: 'pinned', [missing]: 'failed' });
    const rows = await database.db.select().from(pins).where(inArray(pins.cid, [held, before, missing]));
    expect(rows.map((row) => [row.cid, row.status]).sort()).toEqual([[held, 'pinned'], [before, 'pinned'], [missing, 'failed']].sort());
    expect(rows.find((row) => row.cid === before)).toEqual(earlier);
  });
});
