/**
 * A catalogue that loses much of itself at once (issue #18's "retirado del catálogo", kept true):
 * past `WITHDRAWALS_AT_ONCE`, a run withdraws no dataset on its own reading and says why; a
 * complete run `SECOND_READING_AFTER` later withdraws what neither listed; one sooner holds the
 * same; a catalogue back whole clears the hold; a file dropped from a dataset still listed is
 * withdrawn at once. On both engines, against local portals on 127.0.0.1 serving generated CKAN
 * catalogues.
 */
import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harvestedRecords, harvestSources, imports, statusHistory } from '../../src/lib/server/db/schema.ts';
import { catalogPageFetcher, registerHarvestSource, runHarvest, RUN_ERROR_KEY } from '../../src/lib/server/harvest/index.ts';
import { SECOND_READING_AFTER, WITHDRAWALS_AT_ONCE } from '../../src/lib/server/harvest/withdrawals.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type CkanPackage, type LocalPortal } from '../helpers/portal/index.ts';

const fetchPage = catalogPageFetcher({ allowPrivate: true });
const DATASETS = 40;

describe.each(testEngines())('mass withdrawals held for a second reading on %s', (engine) => {
  let database: TestDatabase;
  const portals: LocalPortal[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    expect(DATASETS * WITHDRAWALS_AT_ONCE.share).toBeLessThan(25);
    expect(SECOND_READING_AFTER.sql).toBe('12 hours');
  });
  afterAll(async () => {
    await Promise.all(portals.map((portal) => portal.close()));
    await database?.destroy();
  });

  /** A portal of `DATASETS` generated datasets, registered and harvested once. */
  async function harvested() {
    const portal = await startLocalPortal({ datasets: DATASETS });
    portals.push(portal);
    const all = [...portal.packages];
    const {
      harvestSource: { id },
    } = await registerHarvestSource(database.db, { url: portal.urls.ckan, kind: 'ckan', name: `Portal generado ${portals.length}` });
    expect((await runHarvest(database.db, id, { fetchPage })).counts.failed).toBe(0);
    return {
      all,
      /** The portal lists only `packages` from now on. */
      listOnly: (packages: CkanPackage[]) => portal.packages.splice(0, portal.packages.length, ...packages),
      run: () => runHarvest(database.db, id, { fetchPage }),
      heldBy: async () => (await database.db.select({ heldBy: harvestSources.withdrawalsHeldBy }).from(harvestSources).where(eq(harvestSources.id, id)))[0]!.heldBy,
      /** The datasets with a record withdrawn. */
      withdrawn: async () =>
        new Set(
          (
            await database.db
              .select({ dataset: harvestedRecords.datasetIdentifier })
              .from(harvestedRecords)
              .where(and(eq(harvestedRecords.harvestSourceId, id), isNotNull(harvestedRecords.withdrawnAt)))
          ).map((row) => row.dataset),
        ),
      records: () => database.db.select().from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, id)),
    };
  }
  const runNote = (errors: Array<{ key: string; message: string }>) => errors.find((error) => error.key === RUN_ERROR_KEY)?.message;
  const ids = (packages: CkanPackage[]) => new Set(packages.map((pkg) => pkg.id));
  /** As if the run `importId` had read the catalogue 13 hours ago. */
  const age = (importId: number) => database.db.update(imports).set({ createdAt: sql`now() - interval '13 hours'` }).where(eq(imports.id, importId));

  it('withdraws no dataset on one reading that misses more than a fifth of them, says so, and forgets it once the catalogue is whole again', async () => {
    const source = await harvested();
    source.listOnly(source.all.slice(25));
    const held = await source.run();
    expect(held.status).toBe('done');
    expect(held.counts.withdrawn).toBe(0);
    expect(runNote(held.errors)).toBe(
      `El catálogo dejó de listar 25 conjuntos de datos de los ${DATASETS} que listaba: demasiados de una vez para darlos por retirados con una sola lectura ` +
        '(suele ser el índice del portal, no sus datos). Siguen como estaban; se marcarán retirados si tampoco los lista una cosecha hecha al menos 12 horas después de la que lo notó.',
    );
    expect(await source.withdrawn()).toEqual(new Set());
    expect(await source.heldBy()).toBe(held.importId);

    source.listOnly(source.all);
    const whole = await source.run();
    expect(whole.counts).toMatchObject({ withdrawn: 0, failed: 0 });
    expect(runNote(whole.errors)).toBeUndefined();
    expect(await source.heldBy()).toBeNull();
  });

  it('holds again, under the first run, a second reading sooner than SECOND_READING_AFTER', async () => {
    const source = await harvested();
    source.listOnly(source.all.slice(25));
    const first = await source.run();
    const soon = await source.run();
    expect(soon.counts.withdrawn).toBe(0);
    expect(runNote(soon.errors)).toMatch(/^El catálogo dejó de listar 25 conjuntos de datos/);
    // The clock is the first run's: a moderator's «Cosechar ahora» every minute never confirms.
    expect(await source.heldBy()).toBe(first.importId);
    await age(first.importId);
    const later = await source.run();
    expect(later.counts.withdrawn).toBeGreaterThan(0);
    expect(await source.withdrawn()).toEqual(ids(source.all.slice(0, 25)));
    expect(runNote(later.errors)).toBeUndefined();
    expect(await source.heldBy()).toBeNull();
  });

  it('withdraws, a reading later, what neither listed, and holds again what only the second misses when that is still too many', async () => {
    const source = await harvested();
    source.listOnly(source.all.slice(25));
    const first = await source.run();
    await age(first.importId);
    // The second reading misses datasets 5 to 39: 5 to 24 were missing from both, 25 to 39 (15) only from it.
    source.listOnly(source.all.slice(0, 5));
    const second = await source.run();
    const confirmed = source.all.slice(5, 25);
    const records = await source.records();
    expect(second.counts.withdrawn).toBe(records.filter((row) => ids(confirmed).has(row.datasetIdentifier)).length);
    expect(await source.withdrawn()).toEqual(ids(confirmed));
    expect(runNote(second.errors)).toMatch(
      /^Se retiraron 20 conjuntos de datos que tampoco vio una cosecha anterior\. El catálogo dejó de listar 15 conjuntos de datos de los 40 que listaba: demasiados/,
    );
    expect(await source.heldBy()).toBe(second.importId);
    // Withdrawn as any other: a line of history each, nothing deleted.
    const lines = await database.db
      .select({ reason: statusHistory.reason })
      .from(statusHistory)
      .where(eq(statusHistory.alexandriaId, records.find((row) => row.datasetIdentifier === confirmed[0]!.id)!.alexandriaId));
    expect(lines.map((line) => line.reason)).toContainEqual(expect.stringMatching(/^Retirado del catálogo: la fuente ya no lo lista\./));

    // A reading later again, the fifteen the second one missed go too.
    await age(second.importId);
    const third = await source.run();
    expect(runNote(third.errors)).toBeUndefined();
    expect(await source.withdrawn()).toEqual(ids(source.all.slice(5)));
    expect(await source.heldBy()).toBeNull();
  });

  it('withdraws at once the files datasets still listed no longer offer, however many datasets do so', async () => {
    const source = await harvested();
    // Twelve datasets of several files each drop their last one: twelve publishers' decisions, no broken index.
    const trimmed = source.all.filter((pkg) => pkg.resources.length > 1).slice(0, 12);
    expect(trimmed).toHaveLength(12);
    const dropped = new Set(trimmed.map((pkg) => pkg.resources.at(-1)!.id));
    source.listOnly(source.all.map((pkg) => (trimmed.includes(pkg) ? { ...pkg, resources: pkg.resources.slice(0, -1) } : pkg)));
    const run = await source.run();
    expect(run.counts.withdrawn).toBe(12);
    expect(runNote(run.errors)).toBeUndefined();
    const withdrawn = (await source.records()).filter((row) => row.withdrawnAt !== null);
    expect(new Set(withdrawn.map((row) => row.distributionKey))).toEqual(dropped);
    expect(await source.heldBy()).toBeNull();
  });
});
