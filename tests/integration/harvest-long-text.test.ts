/**
 * A catalogue's overlong words, harvested end to end on both engines: a title or a publisher's
 * name of thousands of characters (a broken export, or a hostile catalogue) is held to what a
 * contributor may write, so that it cannot head every list and page; and the publisher cut so is
 * found again on the next run, not created a second time.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIELD_MAX } from '../../src/lib/domain/upload.ts';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, departments, harvestedRecords } from '../../src/lib/server/db/schema.ts';
import { catalogPageFetcher, registerHarvestSource, runHarvest } from '../../src/lib/server/harvest/index.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type LocalPortal } from '../helpers/portal/index.ts';

const fetchPage = catalogPageFetcher({ allowPrivate: true });

describe.each(testEngines())('overlong catalogue text on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let portal: LocalPortal;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
    portal = await startLocalPortal();
  });
  afterAll(async () => {
    await portal?.close();
    await database?.destroy();
  });

  it('cuts a title and a publisher name of 5,000 characters, and finds the publisher again on the next run', async () => {
    const pkg = portal.packages.find((one) => one.organization !== null && one.resources.length === 1)!;
    pkg.title = 'T'.repeat(5000);
    pkg.organization = { ...pkg.organization!, id: 'organismo-largo', name: 'organismo-largo', title: `Organismo ${'O'.repeat(5000)}` };
    const { harvestSource } = await registerHarvestSource(db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local' });
    const first = await runHarvest(db, harvestSource.id, { fetchPage });
    expect(first).toMatchObject({ status: 'done', errors: [] });

    const [record] = await db
      .select({ title: alexandrias.title, department: departments.name })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .innerJoin(departments, eq(departments.id, alexandrias.departmentId))
      .where(eq(harvestedRecords.datasetIdentifier, pkg.id));
    expect(record!.title).toBe(`${'T'.repeat(FIELD_MAX.title - 1)}…`);
    expect(record!.department).toHaveLength(FIELD_MAX.name);
    expect(record!.department).toMatch(/^Organismo O+…$/);

    const departmentsBefore = await db.$count(departments);
    const second = await runHarvest(db, harvestSource.id, { fetchPage });
    expect(second.counts).toMatchObject({ new: 0, updated: 0, failed: 0 });
    expect(await db.$count(departments)).toBe(departmentsBefore);
  });

  it('finds again a department a harvest made before names were cut, by its whole name, rather than making a second', async () => {
    const whole = `Ayuntamiento ${'A'.repeat(5000)}`;
    // As an earlier harvest left it: the whole name, and no website or acronym to find it by.
    const [old] = await db.insert(departments).values({ name: whole, reviewStatus: 'on_line' }).returning({ id: departments.id });
    const pkg = portal.packages.find((one) => one.organization !== null && one.organization.id !== 'organismo-largo')!;
    pkg.organization = { ...pkg.organization!, id: 'ayuntamiento-largo', name: 'ayuntamiento-largo', title: whole };
    const [source] = await db.select({ id: harvestedRecords.harvestSourceId }).from(harvestedRecords).limit(1);
    const departmentsBefore = await db.$count(departments);
    expect(await runHarvest(db, source!.id, { fetchPage })).toMatchObject({ status: 'done', errors: [] });
    const records = await db
      .select({ departmentId: alexandrias.departmentId })
      .from(harvestedRecords)
      .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
      .where(eq(harvestedRecords.datasetIdentifier, pkg.id));
    expect(records.length).toBeGreaterThan(0);
    expect(new Set(records.map((record) => record.departmentId))).toEqual(new Set([old!.id]));
    expect(await db.$count(departments)).toBe(departmentsBefore);
  });
});
