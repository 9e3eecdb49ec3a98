/**
 * The seed's catalogue goes in the way every catalogue does (issue #18): as a harvest run of a
 * registered harvest source, through `runHarvest`'s reader, mapping, publisher matching and page
 * writes, so the 1,065 records of datos.gob.do have the same identity, history and Import as
 * anything harvested later. Only the pages come from the fixtures folder instead of the web.
 *
 * The export we hold (`catalog/datos-gob-do-catalogo-2026-09-24.json`) is the portal's own list of
 * datasets in a shape of its own (slug, title, publisher, formats, groups) and has no resource
 * URLs. It is served to the CKAN reader as the `package_search` pages the portal would answer:
 * `name` is the slug (the export has no CKAN `id`), `url` the dataset's page, resources with
 * their declared format and no URL. Each dataset then becomes one record that describes it, with
 * all its formats (`map.ts`), waiting for someone to archive its files.
 *
 * The harvest source is registered paused, under the export's own address (its `fuente`), as a
 * snapshot taken on the export's date (`snapshot_on`): it is never run again nor resumed, since
 * that address is the portal's web page, not its API. A moderator who wants to follow
 * the live portal registers `https://datos.gob.do` as a source of its own; its datasets are
 * identified by CKAN's ids, which the export lacks, so they become records of their own.
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { harvestSources, imports } from '../db/schema.ts';
import type { FetchPage } from '../harvest/catalogs/index.ts';
import { runHarvest } from '../harvest/run.ts';
import { withArticle } from '../../domain/institution-names.ts';
import { DOMINICAN_REPUBLIC } from '../dcat/vocabularies.ts';
import { PORTAL, type SeedCatalog, type SeedDataset } from './catalog.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

/** Datasets per page, as the runner writes them: one transaction each. */
const PAGE_SIZE = 250;

/** The export's harvest source, paused, feeding the portal's `source`; found again or registered. */
export async function registerPortalExport(tx: Tx, catalog: SeedCatalog, sourceId: number): Promise<number> {
  const url = new URL(catalog.source).href;
  const [existing] = await tx.select({ id: harvestSources.id }).from(harvestSources).where(eq(harvestSources.url, url));
  if (existing) return existing.id;
  const [created] = await tx
    .insert(harvestSources)
    .values({ url, kind: 'ckan', name: `${PORTAL.name} (exportación del ${catalog.exportedOn})`, sourceId, paused: true, snapshotOn: catalog.exportedOn })
    .returning({ id: harvestSources.id });
  return created!.id;
}

/** Whether the export has been harvested to the end already (a seed cut short has not). */
export async function portalExportHarvested(db: Db | Tx, harvestSourceId: number): Promise<boolean> {
  const [done] = await db
    .select({ id: imports.id })
    .from(imports)
    .where(and(eq(imports.harvestSourceId, harvestSourceId), eq(imports.status, 'done')))
    .limit(1);
  return done !== undefined;
}

/**
 * Harvests the export through the runner, unless a run already finished. A run that fails (the
 * fixtures changed under us, a dataset the database refuses) fails the seed, with its reasons.
 */
export async function harvestPortalExport(db: Db, catalog: SeedCatalog, harvestSourceId: number): Promise<void> {
  if (await portalExportHarvested(db, harvestSourceId)) return;
  const report = await runHarvest(db, harvestSourceId, { fetchPage: exportPages(catalog), pageSize: PAGE_SIZE });
  if (report.status === 'failed' || report.counts.failed > 0) {
    const reasons = report.errors.slice(0, 5).map((error) => `${error.key}: ${error.message}`).join('; ');
    throw new Error(`La carga del catálogo de datos.gob.do falló (importación ${report.importId}): ${reasons}`);
  }
}

/** Answers the CKAN reader's `package_search?rows=&start=` from the export, as the portal would. */
export function exportPages(catalog: SeedCatalog): FetchPage {
  const packages = catalog.datasets.map(ckanPackage);
  return async (pageUrl) => {
    const query = new URL(pageUrl).searchParams;
    const start = Number(query.get('start') ?? 0);
    const rows = Number(query.get('rows') ?? PAGE_SIZE);
    const body = JSON.stringify({ success: true, result: { count: packages.length, results: packages.slice(start, start + rows) } });
    return { body, contentType: 'application/json' };
  };
}

/** One dataset of the export as CKAN lists a package. */
function ckanPackage(dataset: SeedDataset) {
  const formats = dataset.publishedFormats.length ? dataset.publishedFormats.join(', ') : 'sin formato indicado';
  return {
    name: dataset.slug,
    title: dataset.title,
    notes:
      `Conjunto de datos publicado por ${withArticle(dataset.org)} en el Portal de Datos Abiertos (datos.gob.do). ` +
      `Formatos publicados: ${formats}.`,
    url: PORTAL.datasetUrl(dataset.slug),
    organization: { title: dataset.org },
    groups: dataset.groups.map((group) => ({ name: group, title: group })),
    resources: dataset.publishedFormats.map((format) => ({ format })),
    // The national portal's data is Dominican and in Spanish, which its packages do not state: said
    // as ckanext-dcat would, so that the archive's DCAT states it of these records.
    language: 'es',
    extras: [{ key: 'spatial_uri', value: DOMINICAN_REPUBLIC }],
  };
}
