/**
 * One harvest run (issue #18): read a registered catalogue page by page, bring its records up to
 * date, and queue the capture of every file the archive does not hold yet.
 *
 * - A run is one Import of type `harvest`: `in_progress`, its `documents` count moving page by
 *   page, then `done`, or `failed` with the reason in `errors`. Its `harvest_counts` say how many
 *   records were new, updated, unchanged, withdrawn, and how many entries failed.
 * - Records are upserted by identity (harvest source, dataset identifier, distribution key;
 *   `map.ts`), one small transaction per dataset, so a run killed half-way keeps what it wrote and
 *   a second run finds it again instead of duplicating it.
 * - A changed title or description is updated, and the change kept in the record's history: a
 *   `status_history` row whose status does not change (from = to) and whose reason says what
 *   changed ("Actualizado desde el catálogo: título «…» → «…»"). The record page already shows
 *   that trail; a table of its own would be a second history.
 * - Only a read that ended without a `CatalogReadError`, every entry read and every dataset
 *   written, lists the whole catalogue: only then are the records of this source it did not see
 *   marked withdrawn (`withdrawn_at`, "retirado del catálogo"), and not too many at once
 *   (`withdrawals.ts`). Nothing is ever deleted.
 * - A capture job per record with a file to fetch and no CID yet, its dedupe key naming the run,
 *   so re-running a page (or the whole run) never queues the same capture twice.
 */
import { and, count, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import {
  alexandrias,
  categories,
  harvestedRecords,
  harvestSources,
  imports,
  jobs,
  statusHistory,
  type HarvestCounts,
  type HarvestSource,
  type ImportError,
} from '../db/schema.ts';
import { enqueueMany, type NewJob } from '../jobs/index.ts';
import { politenessKey } from '../jobs/hosts.ts';
import { readCatalog, type CatalogDataset, type FetchPage, type ReadOptions } from './catalogs/index.ts';
import { frequencyLabel } from './catalogs/frequency.ts';
import { CAPTURE_JOB, type CaptureJobPayload } from './capture-job.ts';
import { catalogueNote, chooseCategory, fileNameOf, foldLabel, mapDataset, type CategoryChoice, type MappedRecord } from './map.ts';
import { PublisherMatcher } from './publishers.ts';
import { listCatalogueSource } from './sources.ts';
import { withdrawUnseen } from './withdrawals.ts';
import { catalogueFactColumns, catalogueFactsOf, type CatalogueFacts } from '../db/catalogue-facts.ts';
import { insertRows } from '../db/json-values.ts';
import { publishableContact } from '../../domain/contact-point.ts';
import { firstCharacters } from '../../domain/text.ts';
import { formatCount } from '../../text.ts';

type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface RunHarvestOptions extends ReadOptions {
  /** Fetches the catalogue's pages: `catalogPageFetcher` with the configuration's `allowPrivate`. */
  fetchPage: FetchPage;
  /** Stops the run between datasets; it ends `failed` ("interrumpida"). */
  signal?: AbortSignal;
  /**
   * The queue's job running this run (`run-job.ts`). A run still open under the same job is that
   * job's earlier attempt, whose process died: it is closed as failed and this one goes ahead.
   */
  jobId?: number;
}

export interface HarvestRunReport {
  importId: number;
  status: 'done' | 'failed';
  counts: HarvestCounts;
  /** Entries that failed and, for a failed run, why it failed. */
  errors: ImportError[];
  /** Capture jobs this run queued. */
  capturesQueued: number;
}

/** Failures an Import keeps in full. */
const MAX_ERRORS = 500;

/** The `errors` key of the failure that ended a run. */
export const RUN_ERROR_KEY = 'catálogo';

/** A run's counts before it has read anything. */
export const emptyCounts = (): HarvestCounts => ({ new: 0, updated: 0, unchanged: 0, withdrawn: 0, failed: 0 });

/**
 * Runs one harvest of the source `harvestSourceId`. Never throws for the catalogue's sake: a
 * catalogue that cannot be read ends the run `failed`, with its reason, in the report and in the
 * Import. (The database's own errors do throw, after marking the run failed if they can.)
 */
/** A run that has not moved for this long was cut short (its process died): it is marked failed. */
const STALE_RUN = '30 minutes';

/**
 * Opens a run's Import, one at a time per harvest source: two runs at once would each withdraw
 * what the other had just seen. Under a transaction lock for the source, a run still moving (its
 * Import updated within `STALE_RUN`, by the database clock) refuses the new one; a run that stopped
 * moving, because its process was killed, is closed as failed first.
 */
async function startRun(db: Db, sourceId: number, harvestSourceId: number, counts: HarvestCounts, jobId: number | null): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('harvest-source'), ${harvestSourceId})`);
    // Dead: not moved for STALE_RUN, or run by a job that is this one (its earlier attempt) or
    // that is no longer running (its worker gave it up).
    const open = await tx
      .select({
        id: imports.id,
        stale: sql<boolean>`${imports.updatedAt} < now() - ${STALE_RUN}::interval
          or (${imports.jobId} is not null and (${imports.jobId} = ${jobId ?? -1}
              or not exists (select 1 from ${jobs} where ${jobs.id} = ${imports.jobId} and ${jobs.status} = 'running')))`,
      })
      .from(imports)
      .where(and(eq(imports.harvestSourceId, harvestSourceId), eq(imports.status, 'in_progress')));
    const live = open.find((run) => !run.stale);
    if (live) throw new Error(`Ya hay una cosecha en curso de esta fuente (importación ${live.id}); espere a que termine.`);
    for (const run of open) {
      await tx
        .update(imports)
        .set({ status: 'failed', errors: sql`coalesce(${imports.errors}, '[]'::jsonb) || ${JSON.stringify([{ key: 'run', message: 'Cosecha interrumpida: su proceso terminó sin cerrarla.' }])}::jsonb`, updatedAt: sql`now()` })
        .where(eq(imports.id, run.id));
    }
    const [run] = await tx
      .insert(imports)
      .values({ type: 'harvest', status: 'in_progress', sourceId, harvestSourceId, jobId, documents: 0, harvestCounts: counts })
      .returning({ id: imports.id });
    return run!.id;
  });
}

/** Why a run its worker stopped ended, and what becomes of it: the queue hands its job on. */
function interruption(reason: unknown): string {
  const why = reason instanceof Error && reason.message ? reason.message.replace(/\.$/, '') : 'El servidor se detiene';
  return `Cosecha interrumpida: ${why.charAt(0).toLowerCase()}${why.slice(1)}. La cola de trabajos la empieza de nuevo.`;
}

/**
 * The entries a run read and kept (new, updated or unchanged). Its import's `documents` counts
 * only those it imported (new or updated), as the timeline says it.
 */
export function documentsRead(counts: HarvestCounts): number {
  return counts.new + counts.updated + counts.unchanged;
}

export async function runHarvest(db: Db, harvestSourceId: number, options: RunHarvestOptions): Promise<HarvestRunReport> {
  const [source] = await db.select().from(harvestSources).where(eq(harvestSources.id, harvestSourceId));
  if (!source) throw new Error(`No existe la fuente de cosecha ${harvestSourceId}.`);

  const counts = emptyCounts();
  const errors: HarvestRunReport['errors'] = [];
  const importId = await startRun(db, source.sourceId, harvestSourceId, counts, options.jobId ?? null);
  let capturesQueued = 0;

  /** Failures kept in full; past `MAX_ERRORS`, only counted (a broken catalogue may fail every entry). */
  let untold = 0;
  const noteError = (key: string, message: string) => {
    if (errors.length < MAX_ERRORS) errors.push({ key: storableText(key), message: storableText(message) });
    else untold += 1;
  };
  // Captures that fail for good while the run goes on add themselves to its Import (`noteFailure`
  // in capture-job.ts): each save keeps them, and counts them as failed.
  const captureErrors = sql`coalesce((select jsonb_agg(e) from jsonb_array_elements(${imports.errors}) e where e->>'message' like 'captura:%'), '[]'::jsonb)`;
  const captureFailures = sql`(select count(*) from jsonb_array_elements(${imports.errors}) e where e->>'message' like 'captura:%')::int`;
  const save = (status: 'in_progress' | 'done' | 'failed') => {
    const told = untold > 0 ? [...errors, { key: 'más', message: `y ${untold} error(es) más` }] : errors;
    return db
      .update(imports)
      .set({
        status,
        // What it imported, as the timeline says it ("N documentos importados"): a daily run that
        // found nothing changed imported nothing, whatever it read (its counts keep that).
        documents: counts.new + counts.updated,
        documentsFailed: sql`${counts.failed} + ${captureFailures}`,
        harvestCounts: sql`jsonb_set(${JSON.stringify(counts)}::jsonb, '{failed}', to_jsonb(${counts.failed} + ${captureFailures}))`,
        errors: sql`${JSON.stringify(told)}::jsonb || ${captureErrors}`,
        updatedAt: sql`now()`,
      })
      .where(eq(imports.id, importId));
  };

  /** The total the catalogue first stated, and whether a later page stated another. */
  let firstTotal: number | null = null;
  let moved: string | null = null;
  /** Datasets listed again (read once): on the page that listed them (`twice`), or on a later one (`shifted`); the first few named. */
  const repeats = { twice: { count: 0, named: [] as string[] }, shifted: { count: 0, named: [] as string[] } };
  try {
    const context = await runContext(db, source, importId);
    for await (const page of readCatalog(source.kind, source.url, options.fetchPage, options)) {
      if (page.total !== null) {
        firstTotal ??= page.total;
        if (page.total !== firstTotal) moved ??= `de ${formatCount(firstTotal)} a ${formatCount(page.total)} conjuntos`;
      }
      for (const reason of page.skipped) {
        counts.failed += 1;
        noteError(page.url, reason);
      }
      for (const { identifier, samePage } of page.repeated) {
        const repeat = samePage ? repeats.twice : repeats.shifted;
        repeat.count += 1;
        if (repeat.named.length < NAMED_REPEATS) repeat.named.push(identifier);
      }
      // A page is written a slice at a time: a catalogue that answers 60,000 datasets to a request
      // for 100 held the database in one transaction for many seconds, every page of the archive
      // waiting behind it (on the embedded database's one connection).
      for (let start = 0; start < page.datasets.length; start += WRITE_SLICE) {
        if (options.signal?.aborted) throw new Error('Cosecha interrumpida.');
        const jobs = await harvestPage(db, context, page.datasets.slice(start, start + WRITE_SLICE), counts, (dataset, error) => {
          counts.failed += 1;
          noteError(dataset.identifier, error instanceof Error ? error.message : String(error));
        });
        capturesQueued += (await enqueueMany(db, jobs)).filter((job) => job.created).length;
        await save('in_progress');
      }
    }
    // An entry that could not be read, or a dataset that failed, may still be listed: withdrawing
    // on an incomplete picture would mark a dataset gone that is not. So would a catalogue that
    // changed while it was read: paged by position (CKAN's `start`), a dataset deleted before the
    // page being read moves the next ones back, and one of them is never seen.
    // A dataset listed twice is read once: no failure. Listed again on a later page, it says the
    // catalogue's rows moved forward while its pages were read (a dataset added, or changed and
    // sorted to the front), and the one that moved past the page being read was never seen.
    if (repeats.twice.count > 0) {
      noteError(RUN_ERROR_KEY, `El catálogo lista ${datasetsNamed(repeats.twice)} dos veces en una misma página: se leyó cada uno una sola vez.`);
    }
    if (moved) {
      noteError(RUN_ERROR_KEY, `El catálogo cambió mientras se leía (${moved}): esta cosecha no da por retirado ningún conjunto; la próxima lo comprobará.`);
    } else if (repeats.shifted.count > 0) {
      noteError(
        RUN_ERROR_KEY,
        `El catálogo volvió a listar en una página posterior ${datasetsNamed(repeats.shifted)}: sus páginas se movieron mientras se leían, así que esta cosecha no da por retirado ningún conjunto; la próxima lo comprobará.`,
      );
    } else if (counts.failed === 0) {
      // A catalogue that lists nothing at all is far more often a portal whose index is down than
      // one that removed every dataset: nothing is withdrawn on its word alone.
      if (documentsRead(counts) === 0 && (await listedRecords(db, harvestSourceId)) > 0) {
        throw new Error('El catálogo no lista ningún conjunto de datos, y antes listaba los que el archivo cosechó: no se da ninguno por retirado. Si el portal está caído o su índice vacío, la próxima cosecha lo comprobará.');
      }
      const withdrawals = await withdrawUnseen(db, harvestSourceId, importId);
      counts.withdrawn = withdrawals.withdrawn;
      if (withdrawals.held) noteError(RUN_ERROR_KEY, withdrawals.held);
    }
    await save('done');
    return { importId, status: 'done', counts, errors, capturesQueued };
  } catch (error) {
    // The reason the run ended is always told, whatever the cap. Stopped by its worker (the server
    // stopping, a lease lost), whatever it was doing failed for that: the stop is the reason, not
    // «captura cancelada» of the page being read.
    const stopped = options.signal?.aborted ? interruption(options.signal.reason) : null;
    errors.push({ key: RUN_ERROR_KEY, message: storableText(stopped ?? (error instanceof Error ? error.message : String(error))) });
    await save('failed');
    return { importId, status: 'failed', counts, errors, capturesQueued };
  }
}

interface RunContext {
  source: HarvestSource;
  importId: number;
  publishers: PublisherMatcher;
  categories: CategoryChoice;
}

async function runContext(db: Db, source: HarvestSource, importId: number): Promise<RunContext> {
  const rows = await db.select({ id: categories.id, title: categories.title }).from(categories).orderBy(categories.id);
  return {
    source,
    importId,
    publishers: await PublisherMatcher.load(db),
    categories: {
      themeMap: source.themeMap,
      categoryByTitle: new Map(rows.map((row) => [foldLabel(row.title), row.id])),
      defaultCategoryId: source.defaultCategoryId,
    },
  };
}

/** A dataset ready to be written: its records, and its department and category found. */
interface PreparedDataset {
  dataset: CatalogDataset;
  records: MappedRecord[];
  departmentId: number | null;
  categoryId: number | null;
}

/** What writing some datasets did: counted only once their transaction has committed. */
interface Written {
  counts: Pick<HarvestCounts, 'new' | 'updated' | 'unchanged'>;
  jobs: NewJob[];
}

/**
 * Datasets written in one transaction, at most: what a real page holds (CKAN's 10 to 1,000 rows,
 * the seed's 250) in a transaction short enough for the other requests waiting on the database.
 */
export const WRITE_SLICE = 250;

/** Records per statement: an INSERT's JSON document, or the ids of an UPDATE's list of bound values. */
const INSERT_BATCH = 500;

/**
 * Brings one page's datasets up to date, in one transaction and a few multi-row statements (the
 * statement-level triggers on records then run once a page, not once a record). If the page fails
 * as a whole, its datasets are written one by one, each in its own transaction, so that only the
 * dataset at fault fails. Returns the capture jobs the records need.
 */
async function harvestPage(
  db: Db,
  context: RunContext,
  datasets: readonly CatalogDataset[],
  counts: HarvestCounts,
  fail: (dataset: CatalogDataset, error: unknown) => void,
): Promise<NewJob[]> {
  const prepared: PreparedDataset[] = [];
  for (const dataset of datasets) {
    try {
      const records = mapDataset(dataset, { language: context.source.defaultLanguage, country: context.source.defaultCountry });
      if (records.length === 0) continue;
      // Departments are found or created outside the page's transaction: one shared by many
      // datasets is created once, and stays for the next page even if this one fails.
      const departmentId = dataset.publisher ? await context.publishers.findOrCreate(db, dataset.publisher) : null;
      prepared.push({ dataset, records, departmentId, categoryId: chooseCategory(dataset.themes, context.categories) });
    } catch (error) {
      fail(dataset, error);
    }
  }
  const add = (written: Written) => {
    counts.new += written.counts.new;
    counts.updated += written.counts.updated;
    counts.unchanged += written.counts.unchanged;
    return written.jobs;
  };
  try {
    return add(await db.transaction((tx) => writeDatasets(tx, context, prepared)));
  } catch {
    const jobs: NewJob[] = [];
    for (const item of prepared) {
      try {
        jobs.push(...add(await db.transaction((tx) => writeDatasets(tx, context, [item]))));
      } catch (error) {
        fail(item.dataset, error);
      }
    }
    return jobs;
  }
}

/** Writes `items` in the transaction `tx`: new records inserted together, changed ones updated with history. */
async function writeDatasets(tx: Tx, context: RunContext, items: readonly PreparedDataset[]): Promise<Written> {
  const { source, importId } = context;
  const written: Written = { counts: { new: 0, updated: 0, unchanged: 0 }, jobs: [] };
  if (items.length === 0) return written;
  const existing = await tx
    .select({
      harvested: harvestedRecords,
      record: {
        id: alexandrias.id,
        title: alexandrias.title,
        description: alexandrias.description,
        apiEndpoint: alexandrias.apiEndpoint,
        status: alexandrias.status,
        cid: alexandrias.cid,
        departmentId: alexandrias.departmentId,
        categoryId: alexandrias.categoryId,
        ...catalogueFactColumns,
      },
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(
      and(
        eq(harvestedRecords.harvestSourceId, source.id),
        inArray(harvestedRecords.datasetIdentifier, [...new Set(items.map((item) => item.dataset.identifier))]),
      ),
    );
  const identity = (datasetIdentifier: string, distributionKey: string) => `${datasetIdentifier}\u0000${distributionKey}`;
  const byIdentity = new Map(existing.map((row) => [identity(row.harvested.datasetIdentifier, row.harvested.distributionKey), row]));

  const fresh: Array<{ item: PreparedDataset; record: MappedRecord }> = [];
  const seen: number[] = [];
  /** The history entries of records withdrawn before that the catalogue lists again. */
  const returned: Array<typeof statusHistory.$inferInsert & { alexandriaId: number }> = [];
  const uncaptured: Array<{ alexandriaId: number; url: string }> = [];
  const capture = (alexandriaId: number, url: string | null) => {
    if (!url) return;
    const payload: CaptureJobPayload = { alexandriaId, url, importId };
    written.jobs.push({ kind: CAPTURE_JOB, payload, host: politenessKey(url), dedupeKey: `capture:${importId}:${alexandriaId}` });
  };

  for (const item of items) {
    for (const record of item.records) {
      const found = byIdentity.get(identity(item.dataset.identifier, record.distributionKey));
      if (!found) {
        fresh.push({ item, record });
        continue;
      }
      const alexandriaId = found.record.id;
      const { harvested } = found;
      const movedFile = harvested.distributionUrl !== record.url;
      const newDepartment = follows(harvested.mappedDepartmentId, found.record.departmentId, item.departmentId);
      const newCategory = follows(harvested.mappedCategoryId, found.record.categoryId, item.categoryId);
      const changes = [
        ...describeChanges(found.record, record),
        ...describeFileChanges(harvested, record),
        ...(newDepartment ? ['institución cambiada'] : []),
        ...(newCategory ? ['categoría cambiada'] : []),
      ];
      if (changes.length > 0) {
        await tx
          .update(alexandrias)
          .set({
            title: record.title,
            description: record.description,
            apiEndpoint: record.apiEndpoint,
            ...catalogueFactsOf(record),
            // Where the catalogue now says the file is, which the next capture fetches.
            // A file the catalogue no longer gives an address for keeps the one it came from;
            // a file already captured keeps its name until the capture of the new one renames it.
            ...(movedFile && record.url ? { originalUrl: record.url, ...(found.record.cid === null ? { fileName: fileNameOf(record.url) } : {}) } : {}),
            ...(newDepartment ? { departmentId: item.departmentId } : {}),
            ...(newCategory ? { categoryId: item.categoryId } : {}),
            updatedAt: sql`now()`,
          })
          .where(eq(alexandrias.id, alexandriaId));
        await tx.insert(statusHistory).values({
          alexandriaId,
          fromStatus: found.record.status,
          toStatus: found.record.status,
          // A change only the source's settings made is not the catalogue's.
          reason: changes.every((change) => Object.hasOwn(BY_SETTINGS, change))
            ? `Actualizado según los ajustes de su fuente de cosecha: ${changes.map((change) => BY_SETTINGS[change]).join('; ')}`
            : `Actualizado desde el catálogo: ${changes.join('; ')}`,
        });
        written.counts.updated += 1;
      } else if (harvested.withdrawnAt !== null) {
        // Back in its catalogue: listed again is a change, told in its history (BACK_IN_CATALOGUE).
        written.counts.updated += 1;
      } else {
        written.counts.unchanged += 1;
      }
      // The catalogue names another file, or other bytes at the same address: a record with its
      // file is checked again at once (`watch.ts` queues it on its next turn), not days later.
      const newFile = movedFile || harvested.declaredSize !== record.declaredSize || harvested.declaredChecksum !== record.declaredChecksum;
      const remapped = harvested.mappedDepartmentId !== item.departmentId || harvested.mappedCategoryId !== item.categoryId;
      if (newFile || harvested.declaredFormat !== record.declaredFormat || remapped) {
        await tx
          .update(harvestedRecords)
          .set({
            distributionUrl: record.url,
            declaredFormat: record.declaredFormat,
            declaredSize: record.declaredSize,
            declaredChecksum: record.declaredChecksum,
            mappedDepartmentId: item.departmentId,
            mappedCategoryId: item.categoryId,
            ...(newFile && found.record.cid !== null && record.url ? { nextCheckAt: sql`now()` } : {}),
          })
          .where(eq(harvestedRecords.alexandriaId, alexandriaId));
      }
      if (harvested.withdrawnAt !== null) returned.push({ alexandriaId, fromStatus: found.record.status, toStatus: found.record.status, reason: BACK_IN_CATALOGUE });
      seen.push(alexandriaId);
      if (found.record.cid === null && record.url) uncaptured.push({ alexandriaId, url: record.url });
    }
  }

  // A record still without its file gets a capture with this run, unless one is queued or running
  // already (an earlier run's, still waiting its turn at a slow host): two captures of one record
  // at once would write it twice.
  if (uncaptured.length > 0) {
    const active = await tx
      .select({ alexandriaId: sql<number>`(${jobs.payload}->>'alexandriaId')::int` })
      .from(jobs)
      .where(
        and(
          eq(jobs.kind, CAPTURE_JOB),
          inArray(jobs.status, ['queued', 'running']),
          inArray(sql`(${jobs.payload}->>'alexandriaId')::int`, uncaptured.map((entry) => entry.alexandriaId)),
        ),
      );
    const busy = new Set(active.map((row) => row.alexandriaId));
    for (const entry of uncaptured) if (!busy.has(entry.alexandriaId)) capture(entry.alexandriaId, entry.url);
  }

  if (returned.length > 0) await tx.execute(insertRows(statusHistory, returned));
  // Their pages changed (no «Retirado del catálogo» any more): so did their date of change, which
  // the sitemap, schema.org and DCAT state, as the withdrawal moved it (withdrawals.ts). Lists in
  // «recently updated» order (collections, the API's default) show them first again.
  for (let start = 0; start < returned.length; start += INSERT_BATCH) {
    await tx
      .update(alexandrias)
      .set({ updatedAt: sql`now()` })
      .where(inArray(alexandrias.id, returned.slice(start, start + INSERT_BATCH).map((line) => line.alexandriaId)));
  }
  // Seen again: one statement for the whole page.
  for (let start = 0; start < seen.length; start += INSERT_BATCH) {
    await tx
      .update(harvestedRecords)
      .set({ lastSeenImportId: importId, withdrawnAt: null, updatedAt: sql`now()` })
      .where(inArray(harvestedRecords.alexandriaId, seen.slice(start, start + INSERT_BATCH)));
  }

  for (let start = 0; start < fresh.length; start += INSERT_BATCH) {
    const batch = fresh.slice(start, start + INSERT_BATCH);
    // Each table's rows as one JSON document (`insertRows`); RETURNING gives the new records in the
    // order given (PostgreSQL inserts them in turn).
    const inserted = (await tx.execute(
      insertRows(
        alexandrias,
        batch.map(({ item, record }) => ({
          title: record.title,
          description: record.description,
          type: record.type,
          formats: record.formats,
          status: 'under_review' as const,
          sourceUrl: record.sourceUrl,
          originalUrl: record.url,
          apiEndpoint: record.apiEndpoint,
          // Named before its bytes come in: findable by its file's name, and its capture, which
          // most often gets the same name, need not compute its search text again (`writeKept`).
          fileName: record.url ? fileNameOf(record.url) : null,
          departmentId: item.departmentId,
          categoryId: item.categoryId,
          sourceId: source.sourceId,
          importId,
          ...catalogueFactsOf(record),
          provenanceNote: catalogueNote(source, record.url ? 'pending' : 'no-url'),
        })),
        ['id'],
      ),
    )) as unknown as { rows: Array<{ id: number }> };
    if (inserted.rows.length !== batch.length) throw new Error(`Se insertaron ${inserted.rows.length} registros de ${batch.length}.`);
    const ids = inserted.rows.map((row) => Number(row.id));
    await tx.execute(
      insertRows(
        harvestedRecords,
        batch.map(({ item, record }, index) => ({
          alexandriaId: ids[index]!,
          harvestSourceId: source.id,
          datasetIdentifier: item.dataset.identifier,
          distributionKey: record.distributionKey,
          distributionUrl: record.url,
          declaredFormat: record.declaredFormat,
          declaredSize: record.declaredSize,
          declaredChecksum: record.declaredChecksum,
          mappedDepartmentId: item.departmentId,
          mappedCategoryId: item.categoryId,
          lastSeenImportId: importId,
        })),
      ),
    );
    await tx.execute(
      insertRows(
        statusHistory,
        ids.map((id, index) => ({
          alexandriaId: id,
          fromStatus: null,
          toStatus: 'under_review' as const,
          reason: awaitingCapture(source.name, batch[index]!.record),
        })),
      ),
    );
    batch.forEach(({ record }, index) => capture(ids[index]!, record.url));
    written.counts.new += batch.length;
  }
  // The catalogue's first records: the source the archive made for it is listed from now on.
  if (fresh.length > 0) await listCatalogueSource(tx, source);
  return written;
}

/** Repeated datasets a note names, at most; the rest are counted. */
const NAMED_REPEATS = 3;

/** Datasets named by identifier in a note: the number, and the first few («1 conjunto (a)», «5 conjuntos (a, b, c…)»). */
function datasetsNamed({ count, named }: { count: number; named: readonly string[] }): string {
  const more = count > named.length ? '…' : '';
  return `${count === 1 ? '1 conjunto' : `${formatCount(count)} conjuntos`} (${named.join(', ')}${more})`;
}

/**
 * Why a new harvested record starts under review: it waits for its document, or, when the
 * catalogue gives no address to download it from, it is a description without one.
 */
function awaitingCapture(catalogue: string, { url, apiEndpoint }: Pick<MappedRecord, 'url' | 'apiEndpoint'>): string {
  if (url) return `Cosechado del catálogo «${catalogue}»; queda en revisión hasta que se capture su documento desde la dirección que da el catálogo.`;
  if (apiEndpoint) return `Cosechado del catálogo «${catalogue}», que lo ofrece como servicio (API), no como archivo: queda en revisión como descripción, sin documento.`;
  return `Cosechado del catálogo «${catalogue}», que no da una dirección de descarga: queda en revisión como descripción, sin documento.`;
}

const BACK_IN_CATALOGUE = 'De vuelta en el catálogo: la fuente lo lista de nuevo.';

/**
 * Whether a record takes the institution or category (`next`) the catalogue, or the source's
 * mapping of its themes, now gives: when it differs from what the harvest gave last (`mapped`) and
 * the record still holds that (`current`); a record a moderator moved by hand keeps theirs.
 */
const follows = (mapped: number | null, current: number | null, next: number | null) => next !== mapped && current === mapped;

/** What changed in the file the catalogue names for a record: its address, or what it declares of its bytes. */
function describeFileChanges(harvested: typeof harvestedRecords.$inferSelect, next: MappedRecord): string[] {
  const changes: string[] = [];
  if (harvested.distributionUrl !== next.url) changes.push(`dirección de descarga ${harvested.distributionUrl ?? 'ninguna'} → ${next.url ?? 'ninguna'}`);
  if (harvested.declaredSize !== next.declaredSize || harvested.declaredChecksum !== next.declaredChecksum) changes.push('tamaño o suma de comprobación declarados cambiados');
  return changes;
}

/**
 * How a change of a record's languages or areas is told, by who says them now (`MappedRecord.saidBy`):
 * its catalogue, its source's settings (a moderator's), or no one.
 */
const SAID_CHANGES = {
  languages: { catalogue: 'idioma declarado cambiado', source: 'idioma de los datos según los ajustes de la fuente', none: 'idioma de los datos ya sin indicar' },
  spatial: { catalogue: 'cobertura geográfica cambiada', source: 'país según los ajustes de la fuente', none: 'cobertura geográfica ya sin indicar' },
} as const;

/** The changes only the source's settings made, as a line of their own names them. */
const BY_SETTINGS: Readonly<Record<string, string>> = {
  [SAID_CHANGES.languages.source]: 'idioma de los datos',
  [SAID_CHANGES.spatial.source]: 'país que cubren',
};

/** What a record holds now of what the catalogue says, to tell what changed. */
type CurrentRecord = Pick<MappedRecord, 'title' | 'description' | 'apiEndpoint'> & CatalogueFacts;

/** A frequency as the history names it: the Spanish name of a known code, else as declared. */
const frequencyNamed = (frequency: string | null) => (frequency === null ? 'sin indicar' : frequencyLabel(frequency));

const sameDate = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);

/** What changed between a record and what the catalogue says now, in Spanish; empty when nothing did. */
function describeChanges(current: CurrentRecord, next: MappedRecord): string[] {
  const changes: string[] = [];
  if (current.title !== next.title) changes.push(`título «${current.title}» → «${next.title}»`);
  if ((current.description ?? null) !== (next.description ?? null)) changes.push('descripción cambiada');
  if ((current.apiEndpoint ?? null) !== next.apiEndpoint) changes.push(`servicio (API) ${current.apiEndpoint ?? 'ninguno'} → ${next.apiEndpoint ?? 'ninguno'}`);
  if (!sameDate(current.issued, next.issued)) changes.push('fecha de publicación cambiada');
  // Most catalogues move it whenever the record is touched: said as what it is, not as a new publication.
  if (!sameDate(current.modified, next.modified)) changes.push('fecha de modificación cambiada');
  if ((current.licenseTitle ?? null) !== next.licenseTitle || (current.licenseUrl ?? null) !== next.licenseUrl) {
    changes.push(`licencia «${current.licenseTitle ?? 'sin licencia'}» → «${next.licenseTitle ?? next.licenseUrl ?? 'sin licencia'}»`);
  }
  if (current.keywords.join('\u0000') !== next.keywords.join('\u0000')) changes.push('palabras clave cambiadas');
  if (current.updateFrequency !== next.updateFrequency) {
    changes.push(`frecuencia de actualización «${frequencyNamed(current.updateFrequency)}» → «${frequencyNamed(next.updateFrequency)}»`);
  }
  // As published (`publishableContact`): a name an earlier version stored on two lines is the same contact.
  const contact = publishableContact(current.contactName, current.contactEmail);
  if ((contact?.name ?? null) !== next.contactName || (contact?.email ?? null) !== next.contactEmail) changes.push('contacto del editor cambiado');
  if (current.temporalStart !== next.temporalStart || current.temporalEnd !== next.temporalEnd || current.temporalText !== next.temporalText) {
    changes.push('cobertura temporal cambiada');
  }
  if (current.languages.join('\u0000') !== next.languages.join('\u0000')) changes.push(SAID_CHANGES.languages[next.saidBy.languages ?? 'none']);
  if (current.spatial.join('\u0000') !== next.spatial.join('\u0000')) changes.push(SAID_CHANGES.spatial[next.saidBy.spatial ?? 'none']);
  return changes;
}

/** How many records of the source its catalogue listed last (not withdrawn). */
async function listedRecords(db: Db, harvestSourceId: number): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(harvestedRecords)
    .where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNull(harvestedRecords.withdrawnAt)));
  return Number(row?.n ?? 0);
}

/**
 * A catalogue's words as the database can keep them: PostgreSQL's text holds no NUL, which a
 * reason quoting a broken body (UTF-16 read as UTF-8) may carry, nor jsonb a lone surrogate, and
 * the save of a failed run failed with either, leaving the run «en curso». Other control
 * characters go too; long ones are cut (at `maxChars` characters, or a little more UTF-16 units).
 */
export function storableText(text: string, maxChars = 2_000): string {
  // A lone surrogate (a DCAT literal's, or half an emoji) is JSON that jsonb refuses too.
  const clean = text.toWellFormed().replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
  if (clean.length <= maxChars) return clean;
  return `${firstCharacters(clean, maxChars - 1)}…`;
}
