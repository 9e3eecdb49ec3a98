/**
 * What a researcher needs to cite, harvested end to end (issue #20), on both engines: a harvest of
 * the local portal (tests/helpers/portal: the real datos.gob.do CKAN sample) stores each record's
 * update frequency, publisher contact and temporal coverage; the record's details read them back;
 * a second run after the portal changes a frequency and a contact updates the records and says so
 * in their history, in Spanish; CKAN, DCAT-AP and data.json of the same portal give the same facts,
 * each in its own words for the frequency (the page names all three alike).
 */
import { and, eq, inArray, like } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/lib/server/db/index.ts';
import { alexandrias, harvestedRecords, statusHistory } from '../../src/lib/server/db/schema.ts';
import { frequencyLabel } from '../../src/lib/server/harvest/catalogs/frequency.ts';
import type { CatalogKind } from '../../src/lib/server/harvest/catalogs/index.ts';
import { catalogPageFetcher, registerHarvestSource, runHarvest } from '../../src/lib/server/harvest/index.ts';
import { recordDetails } from '../../src/lib/server/queries/records.ts';
import { createTestDatabase, testEngines, type TestDatabase } from '../helpers/database.ts';
import { startLocalPortal, type CkanPackage, type LocalPortal } from '../helpers/portal/index.ts';

/** The pages of the local portal, through the archive's own safe fetcher (127.0.0.1 allowed). */
const fetchPage = catalogPageFetcher({ allowPrivate: true });

/** The citation facts of a source's records, one entry per dataset (its records all share them). */
async function factsByDataset(db: Db, harvestSourceId: number) {
  const rows = await db
    .select({
      dataset: harvestedRecords.datasetIdentifier,
      id: alexandrias.id,
      updateFrequency: alexandrias.updateFrequency,
      contactName: alexandrias.contactName,
      contactEmail: alexandrias.contactEmail,
      temporalStart: alexandrias.temporalStart,
      temporalEnd: alexandrias.temporalEnd,
      temporalText: alexandrias.temporalText,
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(eq(harvestedRecords.harvestSourceId, harvestSourceId))
    .orderBy(harvestedRecords.datasetIdentifier, harvestedRecords.distributionKey);
  const byDataset = new Map<string, Omit<(typeof rows)[number], 'dataset' | 'id'> & { ids: number[] }>();
  for (const { dataset, id, ...facts } of rows) {
    const known = byDataset.get(dataset);
    if (known) {
      // Every record of one dataset carries the dataset's facts.
      expect({ ...known, ids: undefined }).toEqual({ ...facts, ids: undefined });
      known.ids.push(id);
    } else {
      byDataset.set(dataset, { ...facts, ids: [id] });
    }
  }
  return byDataset;
}

const byName = (portal: LocalPortal, name: string): CkanPackage => portal.packages.find((pkg) => pkg.name === name)!;

describe.each(testEngines())('citation facts harvested on %s', (engine) => {
  let database: TestDatabase;
  let db: Db;
  let portal: LocalPortal;
  let harvestSourceId: number;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    db = database.db;
    portal = await startLocalPortal();
    // The sample states no coverage: the dragas package gets one, as ckanext-dcat's extras state it.
    const dragas = byName(portal, 'conjunto-de-datos');
    dragas.extras = [...((dragas.extras as unknown[]) ?? []), { key: 'temporal_start', value: '2020-01-01' }, { key: 'temporal_end', value: '2023-06-30' }];
    const { harvestSource } = await registerHarvestSource(db, { url: portal.urls.ckan, kind: 'ckan', name: 'Portal local' });
    harvestSourceId = harvestSource.id;
  });
  afterAll(async () => {
    await portal?.close();
    await database?.destroy();
  });

  it('stores each dataset’s update frequency, contact and coverage on its records, and the record details read them', async () => {
    const report = await runHarvest(db, harvestSourceId, { fetchPage });
    expect(report).toMatchObject({ status: 'done', errors: [] });
    const facts = await factsByDataset(db, harvestSourceId);
    const of = (name: string) => facts.get(byName(portal, name).id)!;
    const none = { temporalStart: null, temporalEnd: null, temporalText: null };
    expect(of('http-asde-gob-do-transparencia-datos-abiertos-nomina-empleados-asde-csv')).toMatchObject({
      updateFrequency: 'Anual',
      contactName: 'webmaster',
      contactEmail: 'webasde76@hotmail.com',
      ...none,
    });
    expect(of('nominas-personal-institucion')).toMatchObject({ updateFrequency: 'Mensual', contactName: null, contactEmail: 'conaleche@conaleche.gob.do', ...none });
    expect(of('conjunto-de-datos')).toMatchObject({
      updateFrequency: null,
      contactName: 'Oficina de Acceso a la Información',
      contactEmail: 'datosabiertos@dragas.mil.do',
      temporalStart: '2020-01-01',
      temporalEnd: '2023-06-30',
      temporalText: null,
    });
    expect(of('nomina-bani-2018')).toMatchObject({ updateFrequency: 'Mensual', contactName: 'Saul Santana', contactEmail: 'danyelysantana@bani.gob.do', ...none });
    // datos.gob.do's "Periocidad", read all the same.
    expect(of('nomina-empleados-2017')).toMatchObject({ updateFrequency: 'Mensual', contactEmail: 'datosabiertos@sancristobal.gob.do' });

    const [detail] = await recordDetails(db, eq(alexandrias.id, of('conjunto-de-datos').ids[0]!));
    expect(detail).toMatchObject({
      updateFrequency: null,
      contactName: 'Oficina de Acceso a la Información',
      contactEmail: 'datosabiertos@dragas.mil.do',
      temporalStart: '2020-01-01',
      temporalEnd: '2023-06-30',
      temporalText: null,
    });
  });

  it('updates a changed frequency, contact, language and area on the next run, and keeps the change in the history', async () => {
    const bani = byName(portal, 'nomina-bani-2018');
    const extras = bani.extras as Array<{ key: string; value: string }>;
    bani.extras = [...extras.map((extra) => (extra.key === 'Periodicidad' ? { ...extra, value: 'Trimestral' } : extra)), { key: 'spatial_text', value: 'Baní, Peravia' }];
    bani.maintainer_email = 'datos@bani.gob.do';
    bani.language = 'es';
    const report = await runHarvest(db, harvestSourceId, { fetchPage });
    const total = portal.packages.reduce((sum, pkg) => sum + pkg.resources.length, 0);
    expect(report.counts).toEqual({ new: 0, updated: bani.resources.length, unchanged: total - bani.resources.length, withdrawn: 0, failed: 0 });
    const facts = (await factsByDataset(db, harvestSourceId)).get(bani.id)!;
    expect(facts).toMatchObject({ updateFrequency: 'Trimestral', contactName: 'Saul Santana', contactEmail: 'datos@bani.gob.do' });
    const declared = await db.select({ languages: alexandrias.languages, spatial: alexandrias.spatial }).from(alexandrias).where(inArray(alexandrias.id, facts.ids));
    expect(new Set(declared.map((row) => JSON.stringify(row)))).toEqual(
      new Set([JSON.stringify({ languages: ['http://publications.europa.eu/resource/authority/language/SPA'], spatial: ['Baní, Peravia'] })]),
    );
    for (const id of facts.ids) {
      const history = await db
        .select({ reason: statusHistory.reason })
        .from(statusHistory)
        .where(and(eq(statusHistory.alexandriaId, id), like(statusHistory.reason, 'Actualizado desde el catálogo%')));
      expect(history).toEqual([
        { reason: 'Actualizado desde el catálogo: frecuencia de actualización «Mensual» → «Trimestral»; contacto del editor cambiado; idioma declarado cambiado; cobertura geográfica cambiada' },
      ]);
    }
    // Nothing changed since: a third run updates nothing.
    expect((await runHarvest(db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 0, unchanged: total });
    // Nor does a name stored as an earlier version kept it, on two lines: the same name is published.
    await db.update(alexandrias).set({ contactName: 'Saul\r\n  Santana ' }).where(inArray(alexandrias.id, facts.ids));
    expect((await runHarvest(db, harvestSourceId, { fetchPage })).counts).toMatchObject({ updated: 0, unchanged: total });
    await db.update(alexandrias).set({ contactName: 'Saul Santana' }).where(inArray(alexandrias.id, facts.ids));
  });

  it('gives the same facts from DCAT-AP and data.json, each frequency in its own vocabulary', async () => {
    const fromCkan = await factsByDataset(db, harvestSourceId);
    const comparable = (facts: Awaited<ReturnType<typeof factsByDataset>>) =>
      [...facts].map(([dataset, { ids: _, updateFrequency, ...rest }]) => ({ dataset, frequency: updateFrequency && frequencyLabel(updateFrequency), ...rest }));
    const kinds: Array<[CatalogKind, string, Record<string, string>]> = [
      ['dcat', portal.urls.dcatTurtle, { Trimestral: 'http://publications.europa.eu/resource/authority/frequency/QUARTERLY' }],
      ['datajson', portal.urls.dataJson, { Trimestral: 'R/P3M' }],
    ];
    for (const [kind, url, written] of kinds) {
      const { harvestSource } = await registerHarvestSource(db, { url, kind });
      expect(await runHarvest(db, harvestSource.id, { fetchPage }), kind).toMatchObject({ status: 'done', errors: [] });
      const facts = await factsByDataset(db, harvestSource.id);
      expect(comparable(facts), kind).toEqual(comparable(fromCkan));
      expect(facts.get(byName(portal, 'nomina-bani-2018').id)!.updateFrequency, kind).toBe(written.Trimestral);
    }
  });
});
