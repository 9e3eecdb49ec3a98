/**
 * A catalogue that loses much of itself at once (issue #18's "retirado del catálogo", kept true):
 * past `WITHDRAWALS_AT_ONCE`, a run withdraws nothing on its own reading and says why; the next
 * complete run withdraws what neither listed, and a catalogue back whole clears the hold. On both
 * engines, against the local portal on 127.0.0.1 serving a generated CKAN catalogue.
 */
import { and, eq, isNotNull, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { harvestedRecords, harvestSources, statusHistory } from '../../src/lib/server/db/schema.ts';
import { catalogPageFetcher, registerHarvestSource, runHarvest, RUN_ERROR_KEY } from '../../src/lib/server/harvest/index.ts';
import { WITHDRAWALS_AT_ONCE } from '../../src/lib/server/harvest/withdrawals.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type CkanPackage, type LocalPortal } from '../helpers/portal/index.ts';

const fetchPage = catalogPageFetcher({ allowPrivate: true });
const DATASETS = 40;

describe.each(testEngines())('mass withdrawals held for a second reading on %s', (engine) => {
  let database: TestDatabase;
  let portal: LocalPortal;
  let harvestSourceId: number;
  let all: CkanPackage[];

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    portal = await startLocalPortal({ datasets: DATASETS });
    all = [...portal.packages];
    ({
      harvestSource: { id: harvestSourceId },
    } = await registerHarvestSource(database.db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal generado' }));
    expect((await runHarvest(database.db, harvestSourceId, { fetchPage })).counts.failed).toBe(0);
  });
  afterAll(async () => {
    await portal?.close();
    await database?.destroy();
  });

  /** The portal lists only `packages` from now on. */
  const listOnly = (packages: CkanPackage[]) => portal.packages.splice(0, portal.packages.length, ...packages);
  const withdrawnDatasets = async () =>
    new Set(
      (
        await database.db
          .select({ dataset: harvestedRecords.datasetIdentifier })
          .from(harvestedRecords)
          .where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNotNull(harvestedRecords.withdrawnAt)))
      ).map((row) => row.dataset),
    );
  const heldBy = async () => (await database.db.select({ heldBy: harvestSources.withdrawalsHeldBy }).from(harvestSources).where(eq(harvestSources.id, harvestSourceId)))[0]!.heldBy;
  const runNote = (errors: Array<{ key: string; message: string }>) => errors.find((error) => error.key === RUN_ERROR_KEY)?.message;

  it('withdraws nothing on one reading that misses more than a fifth of the datasets, says so, and forgets it once the catalogue is whole again', async () => {
    expect(DATASETS * WITHDRAWALS_AT_ONCE.share).toBeLessThan(25);
    listOnly(all.slice(25));
    const held = await runHarvest(database.db, harvestSourceId, { fetchPage });
    expect(held.status).toBe('done');
    expect(held.counts.withdrawn).toBe(0);
    expect(runNote(held.errors)).toBe(
      `El catálogo dejó de listar 25 conjuntos de datos de los ${DATASETS} que listaba: demasiados de una vez para darlos por retirados con una sola lectura ` +
        '(suele ser el índice del portal, no sus datos). Siguen como estaban; si la próxima cosecha tampoco los lista, se marcarán retirados.',
    );
    expect(await withdrawnDatasets()).toEqual(new Set());
    expect(await heldBy()).toBe(held.importId);

    listOnly(all);
    const whole = await runHarvest(database.db, harvestSourceId, { fetchPage });
    expect(whole.counts).toMatchObject({ withdrawn: 0, failed: 0 });
    expect(runNote(whole.errors)).toBeUndefined();
    expect(await heldBy()).toBeNull();

    // Missing again after a whole reading: held again, not taken for confirmed by the first hold.
    listOnly(all.slice(25));
    expect((await runHarvest(database.db, harvestSourceId, { fetchPage })).counts.withdrawn).toBe(0);
    expect(await withdrawnDatasets()).toEqual(new Set());
    listOnly(all);
    await runHarvest(database.db, harvestSourceId, { fetchPage });
  });

  it('withdraws, at the next complete run, what neither reading listed, and holds what only the second misses', async () => {
    listOnly(all.slice(25));
    expect((await runHarvest(database.db, harvestSourceId, { fetchPage })).counts.withdrawn).toBe(0);
    // The second reading misses datasets 5 to 29: 5 to 24 were missing from both, 25 to 29 only from it.
    listOnly([...all.slice(0, 5), ...all.slice(30)]);
    const second = await runHarvest(database.db, harvestSourceId, { fetchPage });
    const confirmed = all.slice(5, 25);
    const records = await database.db.select().from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, harvestSourceId));
    const recordsOf = (packages: CkanPackage[]) => records.filter((row) => packages.some((pkg) => pkg.id === row.datasetIdentifier));
    expect(second.counts.withdrawn).toBe(recordsOf(confirmed).length);
    expect(await withdrawnDatasets()).toEqual(new Set(confirmed.map((pkg) => pkg.id)));
    expect(runNote(second.errors)).toMatch(/^Se retiraron 20 conjuntos de datos que tampoco listaba la cosecha anterior\. El catálogo dejó de listar 5 conjuntos de datos de los 40 que listaba/);
    expect(await heldBy()).toBe(second.importId);
    // Withdrawn as any other: a line of history each, nothing deleted.
    const lines = await database.db
      .select({ reason: statusHistory.reason })
      .from(statusHistory)
      .where(eq(statusHistory.alexandriaId, recordsOf(confirmed)[0]!.alexandriaId));
    expect(lines.map((line) => line.reason)).toContainEqual(expect.stringMatching(/^Retirado del catálogo: la fuente ya no lo lista\./));

    // A third reading as the second: five datasets of the twenty still listed are within one run's share.
    const third = await runHarvest(database.db, harvestSourceId, { fetchPage });
    expect(third.counts.withdrawn).toBe(recordsOf(all.slice(25, 30)).length);
    expect(runNote(third.errors)).toBeUndefined();
    expect(await heldBy()).toBeNull();
    const listed = await database.db
      .select({ dataset: harvestedRecords.datasetIdentifier })
      .from(harvestedRecords)
      .where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt)));
    expect(new Set(listed.map((row) => row.dataset))).toEqual(new Set([...all.slice(0, 5), ...all.slice(30)].map((pkg) => pkg.id)));
  });
});
