/**
 * What moderators do with harvesting (issue #18, "Where people drive it"), for the page
 * `/moderacion/cosechas` and the REST routes under `/v2/ops/harvest-sources` alike: read the
 * harvest sources with their last run and whether one is queued or running, a source's runs with
 * their counts and failures, and its capture queue; add and edit a source, pause it, ask for a run
 * now, and retry failed captures.
 *
 * Nothing here runs a harvest or a capture: a run is a job of the durable queue (`run-job.ts`)
 * that the server's worker picks up within a second, and a retry puts a failed capture job back
 * in that queue (`jobs/outcomes.ts`). A paused source is only left out of the schedule; "Cosechar
 * ahora" still queues a run for it.
 */
import { and, count, desc, eq, inArray, isNotNull, isNull, like, ne, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { z } from 'zod';
import type { Db } from '../db/index.ts';
import { alexandrias, captures, categories, harvestedRecords, harvestSources, imports, jobs, sources, type HarvestCounts, type ImportError } from '../db/schema.ts';
import { ConflictError, HttpError, ValidationError } from '../http/errors.ts';
import { parseId } from '../queries/index.ts';
import { publicSource } from '../queries/visibility.ts';
import { retryFailed, retryFailedMany } from '../jobs/index.ts';
import { JOB_STATUSES, type JobStatus } from '../jobs/statuses.ts';
import { CATALOG_KINDS, type CatalogKind } from './catalogs/index.ts';
import { cleanLanguage } from './catalogs/values.ts';
import { countryChoices, countryCode, countryIri, languageChoices, languageTag } from '../dcat/vocabularies.ts';
import { CAPTURE_JOB } from './capture-job.ts';
import { foldLabel } from './map.ts';
import { activeRunsOf, HARVEST_JOB, queueHarvestRun, refuseSnapshot, runsOf, type HarvestJobPayload } from './run-job.ts';
import { documentsRead, emptyCounts } from './run.ts';
import { changeHarvestedCatalogue, checkNewAddress, forgetHarvestSource, lockSite, registerHarvestSource, type RegistrationRules } from './sources.ts';
import { makeDueNow, queueDueRechecks, RECHECKS_PER_TURN } from './watch.ts';
import { formatCount } from '../../text.ts';

/**
 * How often a source is harvested again: the choices a moderator has, and the PostgreSQL interval
 * each one is stored as (`harvest_sources.interval`). `seconds` tells them apart when read back,
 * whatever text the engine gives the interval ("7 days", "1 mon").
 */
export const HARVEST_INTERVALS = {
  diaria: { label: 'Diaria', interval: '1 day', seconds: 86_400 },
  semanal: { label: 'Semanal', interval: '7 days', seconds: 604_800 },
  mensual: { label: 'Mensual', interval: '1 mon', seconds: 2_592_000 },
} as const;

export type HarvestInterval = keyof typeof HARVEST_INTERVALS;
const INTERVAL_VALUES = Object.keys(HARVEST_INTERVALS) as [HarvestInterval, ...HarvestInterval[]];
const KIND_VALUES = Object.keys(CATALOG_KINDS) as [CatalogKind, ...CatalogKind[]];

/** Runs a source's page and REST answer list at most. */
export const RUNS_LIMIT = 20;
/** Failures of one run shown, and failed captures listed: enough to act on, bounded. */
export const RUN_ERRORS_LIMIT = 50;
export const FAILED_CAPTURES_LIMIT = 50;
/** Failed captures one "Reintentar todas" puts back in the queue. */
const RETRY_ALL_LIMIT = 1000;

// ---------------------------------------------------------------------------------------------
// Input: one zod schema per operation; the REST routes parse JSON with them, the page converts
// its form fields first (`harvestSourceFromForm`).

/** Why a catalogue address with a name and password is refused: it would be kept and shown wherever the source is. */
export const CATALOGUE_CREDENTIALS_MESSAGE = 'La dirección del catálogo no puede llevar usuario ni contraseña: el archivo solo cosecha catálogos públicos.';

const catalogUrl = z
  .string({ error: 'Indique la dirección del catálogo.' })
  .trim()
  .min(1, 'Indique la dirección del catálogo.')
  .max(2000, 'La dirección del catálogo no puede pasar de 2000 caracteres.')
  .refine((value) => {
    try {
      const url = new URL(value);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
    } catch {
      return false;
    }
  }, 'La dirección del catálogo debe ser una URL http o https completa (por ejemplo https://datos.gob.do).')
  .refine((value) => !URL.canParse(value) || (new URL(value).username === '' && new URL(value).password === ''), CATALOGUE_CREDENTIALS_MESSAGE);

const name = z.string().trim().min(1, 'Indique un nombre.').max(200, 'El nombre no puede pasar de 200 caracteres.');
const categoryId = z.number({ error: 'Elija una categoría válida.' }).int('Elija una categoría válida.').positive('Elija una categoría válida.');
const interval = z.enum(INTERVAL_VALUES, { error: 'Elija la frecuencia: diaria, semanal o mensual.' });
const themeMap = z
  .record(
    z.string().trim().min(1, 'Un tema del mapa está vacío.').max(500, 'Un tema del mapa pasa de 500 caracteres.'),
    categoryId,
    { error: 'El mapa de temas debe asociar cada tema a una categoría.' },
  )
  .refine((map) => Object.keys(map).length <= 500, 'El mapa de temas admite hasta 500 temas.');

/**
 * The language and the country a moderator gives the datasets of a catalogue that declares none
 * (`SourceDefaults`): a language code (`es`), a country's ISO 3166-1 alpha-3 code (`DOM`), or
 * their IRIs in the EU tables; null (or empty) for none.
 */
const defaultLanguage = z
  .string({ error: 'El idioma debe ser un código como «es».' })
  .trim()
  .max(200, 'El idioma debe ser un código como «es».')
  .nullable()
  .refine((value) => !value || cleanLanguage(value) !== null, 'Idioma desconocido: elija uno de la lista, o un código como «es».');
const defaultCountry = z
  .string({ error: 'El país debe ser un código como «DOM».' })
  .trim()
  .max(200, 'El país debe ser un código como «DOM».')
  .nullable()
  .refine((value) => !value || countryIri(value) !== null, 'País desconocido: elija uno de la lista, o un código ISO de tres letras como «DOM».');
const LANGUAGE_HELP =
  'Idioma de los datos de los conjuntos que no declaran el suyo: un código ISO 639 como «es» (también «spa» o la IRI de la tabla de idiomas de la UE), ' +
  `o null para ninguno. Se aceptan: ${languageChoices().map((choice) => choice.code).sort().join(', ')}.`;
const COUNTRY_HELP =
  'País que cubren los conjuntos que no declaran su cobertura geográfica: un código ISO 3166-1 de tres letras como «DOM» (o la IRI de la tabla de países de la UE), ' +
  `o null para ninguno. Se aceptan: ${countryChoices().map((choice) => choice.code).sort().join(', ')}.`;

/** What the columns keep of a moderator's language and country (`undefined`: unchanged). */
function sourceDefaults(input: { defaultLanguage?: string | null | undefined; defaultCountry?: string | null | undefined }) {
  return {
    ...(input.defaultLanguage !== undefined ? { defaultLanguage: input.defaultLanguage ? cleanLanguage(input.defaultLanguage) : null } : {}),
    ...(input.defaultCountry !== undefined ? { defaultCountry: input.defaultCountry ? countryIri(input.defaultCountry) : null } : {}),
  };
}

/**
 * What a request naming a field the archive does not take is told (`fields`: the ones it takes): the
 * kind of a registered catalogue is part of what it is (another kind of the same portal is another
 * source), and any other name is a typing slip that would otherwise pass for applied, or for
 * «nothing to change».
 */
function unknownFields(fields: readonly string[]) {
  return (issue: { code: string; keys?: string[] }): string | undefined => {
    if (issue.code !== 'unrecognized_keys' || !issue.keys) return undefined;
    if (issue.keys.includes('kind')) return 'El tipo de un catálogo registrado no se cambia: registre el catálogo de otro tipo como una fuente nueva (y pause esta).';
    const named = issue.keys.map((key) => `«${key}»`).join(', ');
    return `${issue.keys.length === 1 ? 'No se admite el campo' : 'No se admiten los campos'} ${named}: solo ${listOf(fields)}.`;
  };
}

/** `a, b y c`. */
const listOf = (words: readonly string[]) => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} y ${words.at(-1)}`);

const newSourceFields = {
  url: catalogUrl.describe('La dirección del catálogo: la raíz de un portal CKAN, un catálogo DCAT-AP o un data.json.'),
  kind: z.enum(KIND_VALUES, { error: 'Elija el tipo de catálogo: ckan, dcat o datajson.' }).describe('ckan, dcat o datajson.'),
  name: name.optional().describe('Por omisión, el nombre del servidor del catálogo, con su ruta si otra fuente de ese servidor ya se llama así.'),
  defaultCategoryId: categoryId.nullable().optional().describe('Categoría de los conjuntos cuyos temas no tienen otra.'),
  interval: interval.default('diaria').describe('Frecuencia de la cosecha programada.'),
  themeMap: themeMap.optional().describe('Tema del catálogo (su identificador o su nombre) → id de categoría.'),
  defaultLanguage: defaultLanguage.optional().describe(LANGUAGE_HELP),
  defaultCountry: defaultCountry.optional().describe(COUNTRY_HELP),
  paused: z
    .boolean({ error: 'paused debe ser true o false.' })
    .default(false)
    .describe('Crearla pausada, para revisar su mapa de temas antes de la primera cosecha: la programación no la cosecha hasta que se reanude; «Cosechar ahora» sí.'),
};

/** A new harvest source (`POST /v2/ops/harvest-sources`). */
export const newHarvestSourceInput = z.strictObject(newSourceFields, { error: unknownFields(Object.keys(newSourceFields)) });
export type NewHarvestSourceInput = z.infer<typeof newHarvestSourceInput>;

const editFields = {
  name: name.optional(),
  url: catalogUrl
    .optional()
    .describe('Su nueva dirección (el portal pasó a https, o la ruta estaba mal): sus registros siguen siendo suyos. No mientras una cosecha suya está en cola o en curso.'),
  defaultCategoryId: categoryId.nullable().optional(),
  interval: interval.optional(),
  themeMap: themeMap.optional(),
  defaultLanguage: defaultLanguage.optional().describe(LANGUAGE_HELP),
  defaultCountry: defaultCountry.optional().describe(COUNTRY_HELP),
  paused: z.boolean({ error: 'paused debe ser true o false.' }).optional().describe('Pausada: la programación no la cosecha; «Cosechar ahora» sí.'),
};

/** A change to a harvest source (`PATCH /v2/ops/harvest-sources/{id}`): only the fields given change. */
export const harvestSourceEdit = z
  .strictObject(editFields, { error: unknownFields(Object.keys(editFields)) })
  .refine((edit) => Object.values(edit).some((value) => value !== undefined), 'No hay nada que cambiar.');
export type HarvestSourceEdit = z.infer<typeof harvestSourceEdit>;

// ---------------------------------------------------------------------------------------------
// Reading.

export interface RunSummary {
  /** The run's import. */
  id: number;
  status: 'in_progress' | 'done' | 'failed';
  counts: HarvestCounts;
  /** Records the run read so far (new + updated + unchanged): not its import's `documents`, which counts what it imported. */
  documents: number;
  startedAt: Date;
  updatedAt: Date;
  /** Who asked for it: `programada`, a moderator's wallet, `npm run harvest`; null when unknown. */
  requestedBy: string | null;
  /** How many failures the run recorded (the list itself is in `harvestRuns`). */
  errorCount: number;
}

export interface RunDetail extends RunSummary {
  /** The first `RUN_ERRORS_LIMIT` failures, each with the entry it concerns and why. */
  errors: ImportError[];
  /**
   * The records of those failures (the first `RUN_ERRORS_LIMIT`) whose file came in since (a
   * retry, or a later run), by their newest capture: the run's count of failures is its history,
   * and reads as a problem still open next to an empty list of failed captures unless the page says
   * which were mended.
   */
  mended: number[];
}

export interface ActiveRun {
  jobId: number;
  status: Extract<JobStatus, 'queued' | 'running'>;
  requestedBy: string | null;
  queuedAt: Date;
}

export interface CaptureQueue {
  /**
   * Capture jobs of this source's records, by status, over every run; `done` is rather the records
   * whose file a capture brought ("Capturados"), read from `captures`: done jobs are pruned after a
   * few days (`jobs/prune.ts`), the count must not drop with them. `running` counts the captures
   * under way (`work_began`); a job a worker holds while it waits for its host's turn is `queued`,
   * as it is for the moderator ("En cola"), or a slow site would show hundreds "Capturando".
   */
  counts: Record<JobStatus, number>;
  /** Failed captures whose record still has no file, newest first (at most `FAILED_CAPTURES_LIMIT`). */
  failed: Array<{ jobId: number; alexandriaId: number; title: string; url: string; reason: string | null; attempts: number; failedAt: Date | null }>;
  /** How many failed captures still lack their file (the list is bounded). */
  failedTotal: number;
  /**
   * Records whose file was captured but that wait for a moderator, newest first (at most
   * `FAILED_CAPTURES_LIMIT`): the archive vouches for bytes only when they are a document, and a
   * web page or an empty answer where the catalogue declared data stays under review rather than online
   * (`capture-job.ts`). `mismatch` says how the bytes differ from what the catalogue declared.
   */
  heldForReview: Array<{ alexandriaId: number; title: string; cid: string; url: string; mismatch: string | null; capturedAt: Date }>;
  /** How many such records there are (the list is bounded). */
  heldForReviewTotal: number;
}

export interface HarvestSourceSummary {
  id: number;
  name: string;
  url: string;
  kind: CatalogKind;
  paused: boolean;
  /** The day a kept copy of a catalogue was taken (`YYYY-MM-DD`; the seed's export), null for a live one: never run again. */
  snapshotOn: string | null;
  /** The moderator's choice, or null for an interval set otherwise (by SQL): `intervalLabel` says it. */
  interval: HarvestInterval | null;
  intervalText: string;
  /** How often, in Spanish (`intervalLabel`). */
  intervalLabel: string;
  defaultCategory: { id: number; title: string } | null;
  themeMap: Record<string, number>;
  /** The language code (`es`) and the country code (`DOM`) given to datasets that declare none, or null. */
  defaultLanguage: string | null;
  defaultCountry: string | null;
  /** Our `source` its records are filed under. */
  sourceId: number;
  /** Whether the public sees that source (`queries/visibility.ts`): one made for a catalogue that has brought nothing yet waits. */
  sourceListed: boolean;
  records: number;
  createdAt: Date;
  lastRun: RunSummary | null;
  /** A run queued or running in the queue, if any. */
  activeRun: ActiveRun | null;
}

export interface HarvestSourceDetail extends HarvestSourceSummary {
  captures: CaptureQueue;
}

function intervalChoice(seconds: number): HarvestInterval | null {
  return INTERVAL_VALUES.find((choice) => HARVEST_INTERVALS[choice].seconds === seconds) ?? null;
}

const INTERVAL_UNITS = [
  [86_400, 'día', 'días'],
  [3600, 'hora', 'horas'],
  [60, 'minuto', 'minutos'],
  [1, 'segundo', 'segundos'],
] as const;

/**
 * How often a source is harvested, in Spanish: a moderator's choice by its label, another interval
 * (set in the database by hand) in its largest whole unit, «Cada 36 horas», never the engine's «1 day 12:00:00».
 */
export function intervalLabel(seconds: number): string {
  const choice = intervalChoice(seconds);
  if (choice) return HARVEST_INTERVALS[choice].label;
  const [unit, one, many] = INTERVAL_UNITS.find(([unit]) => seconds % unit === 0) ?? INTERVAL_UNITS[3];
  const count = Math.round(seconds / unit);
  return count === 1 ? `Cada ${one}` : `Cada ${formatCount(count)} ${many}`;
}


const runColumns = {
  id: imports.id,
  status: imports.status,
  counts: imports.harvestCounts,
  startedAt: imports.createdAt,
  updatedAt: imports.updatedAt,
  harvestSourceId: imports.harvestSourceId,
  requestedBy: sql<string | null>`(select ${jobs.payload}->>'requestedBy' from ${jobs} where ${jobs.id} = ${imports.jobId})`,
  errorCount: sql<number>`jsonb_array_length(${imports.errors})::int`,
};

interface RunRow {
  id: number;
  status: RunSummary['status'];
  counts: HarvestCounts | null;
  startedAt: Date;
  updatedAt: Date;
  requestedBy: string | null;
  errorCount: number;
}

function toRunSummary(row: RunRow): RunSummary {
  const counts = { ...emptyCounts(), ...(row.counts ?? {}) };
  return {
    id: row.id,
    status: row.status,
    counts,
    // Read, not imported (the import's own `documents`): a run that changed nothing read them all.
    documents: documentsRead(counts),
    startedAt: row.startedAt,
    updatedAt: row.updatedAt,
    requestedBy: row.requestedBy,
    errorCount: Number(row.errorCount),
  };
}

/** Harvest sources, newest first, with their last run and whether a run is queued or running. */
export async function listHarvestSources(db: Db): Promise<HarvestSourceSummary[]> {
  return summaries(db);
}

async function summaries(db: Db, onlyId?: number): Promise<HarvestSourceSummary[]> {
  const rows = await db
    .select({
      source: harvestSources,
      intervalText: sql<string>`${harvestSources.interval}::text`,
      intervalSeconds: sql<number>`extract(epoch from ${harvestSources.interval})::float8`,
      categoryTitle: categories.title,
      records: sql<number>`(select count(*)::int from ${harvestedRecords} where ${harvestedRecords.harvestSourceId} = ${harvestSources.id})`,
      sourceListed: sql<boolean>`exists (select 1 from ${sources} where ${sources.id} = ${harvestSources.sourceId} and ${publicSource})`,
    })
    .from(harvestSources)
    .leftJoin(categories, eq(categories.id, harvestSources.defaultCategoryId))
    .where(onlyId === undefined ? undefined : eq(harvestSources.id, onlyId))
    .orderBy(desc(harvestSources.id));
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.source.id);

  // The last run of each source: one row each (ids are increasing, so the greatest is the last).
  const lastRuns = await db
    .select(runColumns)
    .from(imports)
    .where(
      inArray(
        imports.id,
        db.select({ id: sql<number>`max(${imports.id})` }).from(imports).where(inArray(imports.harvestSourceId, ids)).groupBy(imports.harvestSourceId),
      ),
    );
  const active = await db
    .select({ id: jobs.id, status: jobs.status, payload: jobs.payload, createdAt: jobs.createdAt })
    .from(jobs)
    .where(and(eq(jobs.kind, HARVEST_JOB), inArray(jobs.status, ['queued', 'running']), sql`(${jobs.payload}->>'harvestSourceId')::int in ${ids}`))
    .orderBy(jobs.id);

  return rows.map(({ source, intervalText, intervalSeconds, categoryTitle, records, sourceListed }) => {
    const last = lastRuns.find((run) => run.harvestSourceId === source.id);
    const job = active.find((candidate) => (candidate.payload as HarvestJobPayload).harvestSourceId === source.id);
    return {
      id: source.id,
      name: source.name,
      url: source.url,
      kind: source.kind,
      paused: source.paused,
      snapshotOn: source.snapshotOn,
      interval: intervalChoice(Number(intervalSeconds)),
      intervalText,
      intervalLabel: intervalLabel(Number(intervalSeconds)),
      defaultCategory: source.defaultCategoryId !== null && categoryTitle ? { id: source.defaultCategoryId, title: categoryTitle } : null,
      themeMap: source.themeMap,
      defaultLanguage: source.defaultLanguage && languageTag(source.defaultLanguage),
      defaultCountry: source.defaultCountry && countryCode(source.defaultCountry),
      sourceId: source.sourceId,
      sourceListed: Boolean(sourceListed),
      records: Number(records),
      createdAt: source.createdAt,
      lastRun: last ? toRunSummary(last) : null,
      activeRun: job
        ? {
            jobId: job.id,
            status: job.status as ActiveRun['status'],
            requestedBy: (job.payload as HarvestJobPayload).requestedBy ?? null,
            queuedAt: job.createdAt,
          }
        : null,
    };
  });
}

/** One harvest source with its capture queue, or a 404. */
export async function getHarvestSource(db: Db, id: number): Promise<HarvestSourceDetail> {
  const [source] = await summaries(db, id);
  if (!source) throw notFound();
  return { ...source, captures: await captureQueue(db, id) };
}

/** Records of a source withdrawn from its catalogue, shown: enough to see which, bounded. */
const WITHDRAWN_LIMIT = 50;

export interface WithdrawnRecords {
  items: Array<{ id: number; cid: string | null; title: string; withdrawnAt: Date }>;
  total: number;
}

/**
 * The source's records that left its catalogue (`withdrawn_at`), most recently withdrawn first: the
 * run counts them, and a moderator wants to see which. The archive keeps them, with their copies.
 */
export async function withdrawnRecords(db: Db, harvestSourceId: number, limit = WITHDRAWN_LIMIT): Promise<WithdrawnRecords> {
  const rows = await db
    .select({
      id: alexandrias.id,
      cid: alexandrias.cid,
      title: alexandrias.title,
      withdrawnAt: harvestedRecords.withdrawnAt,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), isNotNull(harvestedRecords.withdrawnAt)))
    .orderBy(desc(harvestedRecords.withdrawnAt), desc(alexandrias.id))
    .limit(limit);
  return { items: rows.map(({ total: _total, withdrawnAt, ...row }) => ({ ...row, withdrawnAt: withdrawnAt! })), total: rows[0]?.total ?? 0 };
}

/** A source's runs, newest first (at most `limit`), each with its counts and failures. */
export async function harvestRuns(db: Db, harvestSourceId: number, limit = RUNS_LIMIT): Promise<RunDetail[]> {
  await requireSource(db, harvestSourceId);
  const rows = await db
    .select({
      ...runColumns,
      errors: sql<ImportError[]>`coalesce((select jsonb_agg(e) from (select e from jsonb_array_elements(${imports.errors}) as e limit ${RUN_ERRORS_LIMIT}) as first), '[]'::jsonb)`,
    })
    .from(imports)
    .where(eq(imports.harvestSourceId, harvestSourceId))
    .orderBy(desc(imports.id))
    .limit(Math.min(Math.max(1, limit), RUNS_LIMIT));
  const runs = rows.map((row) => ({ ...toRunSummary(row), errors: parseJsonArray(row.errors) }));
  const failedRecords = [...new Set(runs.flatMap((run) => run.errors.flatMap((error) => (typeof error.record === 'number' ? [error.record] : []))))];
  const mended = new Set<number>();
  if (failedRecords.length > 0) {
    // Each record's newest capture, failed or not: a success after the failure mends it. Newest
    // by time, as the record page tells its origin (`withOriginFacts`), in the order of the index.
    const newest = await db
      .selectDistinctOn([captures.alexandriaId], { alexandriaId: captures.alexandriaId, ok: sql<boolean>`${captures.cid} is not null and ${captures.errorReason} is null` })
      .from(captures)
      .where(inArray(captures.alexandriaId, failedRecords))
      .orderBy(captures.alexandriaId, desc(captures.capturedAt), desc(captures.id));
    for (const row of newest) if (row.ok) mended.add(row.alexandriaId);
  }
  return runs.map((run) => ({ ...run, mended: [...new Set(run.errors.flatMap((error) => (typeof error.record === 'number' && mended.has(error.record) ? [error.record] : [])))] }));
}

/** PGlite and node-postgres both parse jsonb; a text answer (a driver that does not) is parsed here. */
function parseJsonArray(value: unknown): ImportError[] {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return Array.isArray(parsed) ? (parsed as ImportError[]) : [];
}

/**
 * The failed captures of a source still without their file, each record once: its newest failed
 * job. Every run queues its own capture job for a record that still lacks its file, so one dead
 * URL fails once per run; listed or retried once per run, it read as several files. A capture whose
 * URL is no longer the catalogue's word is left out (its record withdrawn, or offered now as a
 * service): a retry would ask the publisher for a file it no longer gives.
 */
function stillFailedCaptures(harvestSourceId: number) {
  const newer = alias(jobs, 'newer_job');
  return and(
    capturesOf(harvestSourceId),
    eq(jobs.status, 'failed'),
    isNull(alexandrias.cid),
    sql`not ${noLongerListed}`,
    // Not superseded by a newer capture of the record, failed too or still to run (a retried one).
    sql`not exists (select 1 from ${jobs} as ${newer} where ${newer.kind} = ${CAPTURE_JOB} and ${newer.status} in ('failed', 'queued', 'running') and ${newer.id} > ${jobs.id} and ${newer.dedupeKey} like 'capture:%' and ${newer.payload}->>'alexandriaId' = ${jobs.payload}->>'alexandriaId')`,
  );
}

/**
 * The capture job's URL is no longer the file its catalogue gives: its record was withdrawn
 * ("retirado del catálogo"), or the catalogue gives another address, or none (a service).
 */
const noLongerListed = sql`exists (select 1 from ${harvestedRecords} where ${harvestedRecords.alexandriaId} = (${jobs.payload}->>'alexandriaId')::int
  and (${harvestedRecords.withdrawnAt} is not null or ${harvestedRecords.distributionUrl} is distinct from ${jobs.payload}->>'url'))`;

/**
 * First captures (keyed `capture:<run>:<record>`, `run.ts`) whose record belongs to
 * `harvestSourceId`. The later checks of the same URLs (`recheck:…`, `watch.ts`; the audit's
 * repairs) are the watch's, not the harvest's: counting them would keep a source "capturing" for good.
 */
function capturesOf(harvestSourceId: number) {
  return and(
    eq(jobs.kind, CAPTURE_JOB),
    like(jobs.dedupeKey, 'capture:%'),
    sql`exists (select 1 from ${harvestedRecords} where ${harvestedRecords.alexandriaId} = (${jobs.payload}->>'alexandriaId')::int and ${harvestedRecords.harvestSourceId} = ${harvestSourceId})`,
  );
}

/**
 * A source's capture queue: counts by status and the failed captures still without their file.
 * Done captures are counted as the source's records that a first capture brought a file to (their
 * `captures` row), not as done jobs, which are pruned; failed ones as the failed jobs whose record
 * still has no file, so that a record counts once, captured or failed, as the list shows it.
 */
export async function captureQueue(db: Db, harvestSourceId: number): Promise<CaptureQueue> {
  await requireSource(db, harvestSourceId);
  const waiting = sql<boolean>`${jobs.status} = 'running' and not ${jobs.workBegan}`;
  const grouped = await db
    .select({ status: jobs.status, waiting, total: count() })
    .from(jobs)
    .where(and(capturesOf(harvestSourceId), ne(jobs.status, 'done')))
    .groupBy(jobs.status, waiting);
  const counts = Object.fromEntries(JOB_STATUSES.map((status) => [status, 0])) as Record<JobStatus, number>;
  for (const row of grouped) counts[row.waiting ? 'queued' : row.status] += Number(row.total);
  const [captured] = await db
    .select({ total: count() })
    .from(harvestedRecords)
    .where(
      and(
        eq(harvestedRecords.harvestSourceId, harvestSourceId),
        sql`exists (select 1 from ${captures} where ${captures.alexandriaId} = ${harvestedRecords.alexandriaId} and ${captures.purpose} = 'capture' and ${captures.cid} is not null)`,
      ),
    );
  counts.done = Number(captured?.total ?? 0);

  // A capture that failed in one run and succeeded in another is not a failure any more. The
  // newest failures and how many there are in all, in one query: the window counts every row the
  // condition keeps before the limit cuts them (no row at all means none failed).
  const stillFailed = stillFailedCaptures(harvestSourceId);
  const rows = await db
    .select({
      jobId: jobs.id,
      alexandriaId: alexandrias.id,
      title: alexandrias.title,
      url: sql<string>`${jobs.payload}->>'url'`,
      reason: jobs.lastError,
      // Those before each «Reintentar» too.
      attempts: sql<number>`${jobs.attempts} + ${jobs.previousAttempts}`.mapWith(Number),
      failedAt: jobs.finishedAt,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(jobs)
    .innerJoin(alexandrias, sql`${alexandrias.id} = (${jobs.payload}->>'alexandriaId')::int`)
    .where(stillFailed)
    .orderBy(desc(jobs.id))
    .limit(FAILED_CAPTURES_LIMIT);
  const failedTotal = rows[0]?.total ?? 0;
  counts.failed = failedTotal;

  // Captured, kept, and not published: the capture that brought each record's file says why. The
  // source's records first (its index), then each one's newest capture of its current file.
  const bringing = db
    .select({ id: sql<number>`max(${captures.id})`.as('id') })
    .from(harvestedRecords)
    .innerJoin(alexandrias, eq(alexandrias.id, harvestedRecords.alexandriaId))
    .innerJoin(captures, and(eq(captures.alexandriaId, alexandrias.id), eq(captures.cid, alexandrias.cid)))
    .where(and(eq(harvestedRecords.harvestSourceId, harvestSourceId), eq(alexandrias.status, 'under_review')))
    .groupBy(alexandrias.id);
  const held = await db
    .select({
      alexandriaId: alexandrias.id,
      title: alexandrias.title,
      cid: sql<string>`${alexandrias.cid}`,
      url: sql<string>`coalesce(${captures.finalUrl}, ${captures.requestedUrl})`,
      mismatch: captures.mismatch,
      capturedAt: captures.capturedAt,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(captures)
    .innerJoin(alexandrias, eq(alexandrias.id, captures.alexandriaId))
    .where(inArray(captures.id, bringing))
    .orderBy(desc(captures.id))
    .limit(FAILED_CAPTURES_LIMIT);
  return {
    counts,
    failed: rows.map(({ total: _total, ...failed }) => failed),
    failedTotal,
    heldForReview: held.map(({ total: _total, ...record }) => record),
    heldForReviewTotal: held[0]?.total ?? 0,
  };
}

// ---------------------------------------------------------------------------------------------
// Changes.

function notFound(): HttpError {
  return new HttpError(404, 'Esa fuente de cosecha no existe.');
}

/** The harvest source a route's `{id}` names, as a row id; a 404 in Spanish for anything else. */
export function harvestSourceIdOf(param: string | undefined): number {
  const id = parseId(param);
  if (id === null) throw notFound();
  return id;
}

async function requireSource(db: Db, id: number): Promise<{ name: string; snapshotOn: string | null }> {
  const [found] = await db.select({ name: harvestSources.name, snapshotOn: harvestSources.snapshotOn }).from(harvestSources).where(eq(harvestSources.id, id));
  if (!found) throw notFound();
  return found;
}

/** A 400 unless every category id named (the default, and the theme map's) exists, reported against the field that names it. */
async function requireCategories(db: Db, defaultCategoryId: number | null | undefined, themeMap: Record<string, number> | undefined): Promise<void> {
  const named = [
    ...(typeof defaultCategoryId === 'number' ? [{ id: defaultCategoryId, field: 'defaultCategoryId' }] : []),
    ...Object.values(themeMap ?? {}).map((id) => ({ id, field: 'themeMap' })),
  ];
  if (named.length === 0) return;
  const wanted = [...new Set(named.map((one) => one.id))];
  const found = new Set((await db.select({ id: categories.id }).from(categories).where(inArray(categories.id, wanted))).map((row) => row.id));
  const missing = named.find((one) => !found.has(one.id));
  if (missing) throw new ValidationError(`La categoría ${missing.id} no existe.`, [{ field: missing.field, message: `La categoría ${missing.id} no existe.` }]);
}

/**
 * Registers a harvest source (through `registerHarvestSource`, which files it under our `source`
 * for the catalogue's site). A catalogue already registered is a 409: the moderator edits that one.
 */
export async function createHarvestSource(db: Db, input: NewHarvestSourceInput, rules: RegistrationRules): Promise<HarvestSourceDetail> {
  await requireCategories(db, input.defaultCategoryId, input.themeMap);
  const { harvestSource, created } = await registerHarvestSource(db, {
    url: input.url,
    kind: input.kind,
    name: input.name,
    defaultCategoryId: input.defaultCategoryId ?? null,
    themeMap: input.themeMap,
    paused: input.paused,
    rules,
  });
  // Named with its address: the same catalogue may be registered under another spelling of it.
  if (!created) throw new HttpError(409, `Ya existe una fuente de cosecha para ese catálogo: «${harvestSource.name}», en ${harvestSource.url}.`);
  const defaults = sourceDefaults(input);
  if (input.interval !== 'diaria' || Object.keys(defaults).length > 0) {
    await db
      .update(harvestSources)
      .set({ interval: HARVEST_INTERVALS[input.interval].interval, ...defaults })
      .where(eq(harvestSources.id, harvestSource.id));
  }
  return getHarvestSource(db, harvestSource.id);
}

/** Why a change of name or address waits for the run under way, by what changes. */
const CHANGE_WHEN_DONE = {
  name: 'cambie el nombre cuando termine, para que sus registros nuevos lleven el nombre nuevo.',
  url: 'cambie la dirección cuando termine, para que sus registros nuevos lleven la dirección nueva.',
  both: 'cambie el nombre y la dirección cuando termine, para que sus registros nuevos lleven el nombre y la dirección nuevos.',
} as const;

/**
 * Changes what `edit` names of a harvest source; the next run reads the new address, theme map and
 * category. A new address is checked against `rules`, as a new catalogue's is.
 */
export async function updateHarvestSource(db: Db, id: number, edit: HarvestSourceEdit, rules: RegistrationRules): Promise<HarvestSourceDetail> {
  await requireSource(db, id);
  await requireCategories(db, edit.defaultCategoryId, edit.themeMap);
  await db.transaction(async (tx) => {
    // Runs are queued under this lock (`queueHarvestRun`): none can start between the check for
    // one below and this commit, and read the name or address being changed.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('harvest-queue'), ${id})`);
    // What changes is decided on the row as it is now, locked: not on one read before another
    // moderator's change committed.
    const [current] = await tx.select().from(harvestSources).where(eq(harvestSources.id, id)).for('update');
    if (!current) throw notFound();
    const url = edit.url === undefined ? current.url : new URL(edit.url).href;
    const renames = edit.name !== undefined && edit.name !== current.name;
    const moves = url !== current.url;
    // A copy of a catalogue is not read again, from its address or another.
    if (edit.paused === false || moves) refuseSnapshot(current);
    if (renames || moves) {
      // A run under way writes the name and address it read when it began into the notes of what it adds.
      const [running] = await tx.select({ id: jobs.id }).from(jobs).where(activeRunsOf(id)).limit(1);
      if (running) {
        const what = renames && moves ? 'both' : renames ? 'name' : 'url';
        throw new ConflictError(`Hay una cosecha de esta fuente en cola o en curso: ${CHANGE_WHEN_DONE[what]}`, { field: what === 'name' ? 'name' : 'url' });
      }
      if (moves) await checkNewAddress(tx, current, url, rules);
      await changeHarvestedCatalogue(tx, current, { name: edit.name ?? current.name, url });
    }
    await tx
      .update(harvestSources)
      .set({
        ...(edit.name !== undefined ? { name: edit.name } : {}),
        ...(moves ? { url } : {}),
        ...(edit.defaultCategoryId !== undefined ? { defaultCategoryId: edit.defaultCategoryId } : {}),
        ...(edit.interval !== undefined ? { interval: HARVEST_INTERVALS[edit.interval].interval } : {}),
        ...(edit.themeMap !== undefined ? { themeMap: edit.themeMap } : {}),
        ...sourceDefaults(edit),
        ...(edit.paused !== undefined ? { paused: edit.paused } : {}),
        updatedAt: sql`now()`,
      })
      .where(eq(harvestSources.id, id));
  });
  return getHarvestSource(db, id);
}

/**
 * Deletes a harvest source that never brought a record, with its runs (their rows on the public
 * timeline) and the queue's harvest jobs for it (a queued run goes with it), and the source the
 * archive made for it (`forgetHarvestSource`). One whose catalogue gave records is a 409: its
 * records keep their provenance, and pausing it stops its harvests. So is one whose run is under
 * way, which would write into a source that is no longer there, and the seed's copy of a catalogue.
 */
export async function deleteHarvestSource(db: Db, id: number): Promise<void> {
  await db.transaction(async (tx) => {
    // Runs are queued under this lock (`queueHarvestRun`): none is added while the source goes.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('harvest-queue'), ${id})`);
    const [current] = await tx.select().from(harvestSources).where(eq(harvestSources.id, id)).for('update');
    if (!current) throw notFound();
    // A registration on the same site may be about to file its catalogue under the source this one leaves.
    await lockSite(tx, current.url);
    if (current.snapshotOn !== null) throw new ConflictError(`«${current.name}» es una copia del catálogo guardada con el archivo: no se elimina.`);
    const [record] = await tx.select({ id: harvestedRecords.alexandriaId }).from(harvestedRecords).where(eq(harvestedRecords.harvestSourceId, id)).limit(1);
    if (record) {
      throw new ConflictError('Esta fuente ya trajo registros: no se elimina, para que conserven su procedencia. Pausarla detiene sus cosechas.');
    }
    // Its jobs not running go first, locked as they go: a worker can no longer claim one. One a
    // worker claimed before is running, and seen so by the next statement.
    const ofThisSource = runsOf(id);
    await tx.delete(jobs).where(and(ofThisSource, ne(jobs.status, 'running')));
    const [running] = await tx.select({ id: jobs.id }).from(jobs).where(ofThisSource).limit(1);
    // A run under way without a job (one read by a direct call, or whose worker lost its lease) counts too.
    const [reading] = await tx.select({ id: imports.id }).from(imports).where(and(eq(imports.harvestSourceId, id), eq(imports.status, 'in_progress'))).limit(1);
    if (running || reading) throw new ConflictError('Hay una cosecha de esta fuente en curso: podrá eliminarla cuando termine.');
    await tx.delete(imports).where(eq(imports.harvestSourceId, id));
    await forgetHarvestSource(tx, current);
  });
}

/**
 * "Cosechar ahora": queues a run of the source for `requestedBy` (the moderator's wallet), paused
 * or not. When one is queued or running already, that one stands (`created: false`); a snapshot
 * (the seed's export) is a 409.
 */
export async function requestHarvestRun(db: Db, id: number, requestedBy: string): Promise<{ jobId: number; created: boolean }> {
  await requireSource(db, id);
  const { job, created } = await queueHarvestRun(db, id, requestedBy);
  return { jobId: job.id, created };
}

/**
 * Puts a failed capture back in the queue with all its attempts. A 404 for no such job; a 409 for
 * one that is not a failed capture (a harvest run is asked for again with "Cosechar ahora", which
 * keeps one run per source).
 */
export async function retryCapture(db: Db, jobId: number): Promise<{ jobId: number }> {
  const [job] = await db
    .select({ kind: jobs.kind, status: jobs.status, dedupeKey: jobs.dedupeKey, unlisted: sql<boolean>`${noLongerListed}` })
    .from(jobs)
    .where(eq(jobs.id, jobId));
  if (!job) throw new HttpError(404, 'Ese trabajo no existe.');
  if (job.kind !== CAPTURE_JOB) throw new HttpError(409, 'Solo las capturas se reintentan así; una cosecha se vuelve a pedir con «Cosechar ahora».');
  if (job.status !== 'failed') throw new HttpError(409, 'Esa captura no ha fallado: no hay nada que reintentar.');
  // A first capture only: a check of a kept copy (`recheck:`, the audit's repairs) is the watch's, listed or not.
  if (job.dedupeKey?.startsWith('capture:') && job.unlisted) {
    throw new HttpError(409, 'El catálogo ya no da ese archivo en esa dirección: su captura no se reintenta. Si vuelve a darlo, la próxima cosecha lo capturará.');
  }
  if (!(await retryFailed(db, jobId))) throw new HttpError(409, 'Esa captura no ha fallado: no hay nada que reintentar.');
  return { jobId };
}

/**
 * «Comprobar los archivos ahora»: every captured file of the source that its catalogue still lists
 * is asked of its origin again now (a conditional request, as the watch does), not when its watch
 * would: a file changed at its origin while the catalogue said nothing. The checks are queued at
 * once; each is the watch's, so a new version, a 304 or a disappearance is told as it always is.
 */
export async function checkSourceFilesNow(db: Db, harvestSourceId: number): Promise<{ checks: number }> {
  await requireSource(db, harvestSourceId);
  const due = await makeDueNow(db, { harvestSourceId });
  // All of them at once (the queue paces them per host), and what else was due, as a turn would.
  if (due.length > 0) await queueDueRechecks(db, due.length + RECHECKS_PER_TURN);
  return { checks: due.length };
}

/** "Reintentar todas": every failed capture of the source still without its file, back in the queue. */
export async function retryFailedCaptures(db: Db, harvestSourceId: number): Promise<{ retried: number }> {
  await requireSource(db, harvestSourceId);
  const failed = await db
    .select({ id: jobs.id })
    .from(jobs)
    .innerJoin(alexandrias, sql`${alexandrias.id} = (${jobs.payload}->>'alexandriaId')::int`)
    .where(stillFailedCaptures(harvestSourceId))
    .orderBy(jobs.id)
    .limit(RETRY_ALL_LIMIT);
  return { retried: await retryFailedMany(db, failed.map((job) => job.id)) };
}

// ---------------------------------------------------------------------------------------------
// The page's forms: fields arrive as text.

/** Categories a moderator picks from (id and title, by title). */
export async function categoryChoices(db: Db): Promise<Array<{ id: number; title: string }>> {
  return db.select({ id: categories.id, title: categories.title }).from(categories).orderBy(categories.title);
}

/**
 * The theme map as the page's text area shows it: one `tema = Categoría` a line, by the
 * category's title, so a moderator never types an id.
 */
export function themeMapToText(map: Record<string, number>, choices: ReadonlyArray<{ id: number; title: string }>): string {
  const titles = new Map(choices.map((choice) => [choice.id, choice.title]));
  return Object.entries(map)
    .map(([theme, id]) => `${theme} = ${titles.get(id) ?? id}`)
    .join('\n');
}

/**
 * Reads the text area back: each non-empty line `tema = Categoría` (the category by its title,
 * accents and case aside, or by its id). A line without `=` or with an unknown category is a 400
 * naming the line.
 */
export function themeMapFromText(text: string, choices: ReadonlyArray<{ id: number; title: string }>): Record<string, number> {
  const byTitle = new Map(choices.map((choice) => [foldLabel(choice.title), choice.id]));
  const ids = new Set(choices.map((choice) => choice.id));
  const map: Record<string, number> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const separator = line.lastIndexOf('=');
    const theme = separator > 0 ? line.slice(0, separator).trim() : '';
    const category = separator > 0 ? line.slice(separator + 1).trim() : '';
    const fail = (message: string) => new ValidationError(message, [{ field: 'themeMap', message }]);
    if (!theme || !category) throw fail(`Línea ${index + 1} del mapa de temas: escriba «tema = Categoría».`);
    const id = /^\d+$/.test(category) && ids.has(Number(category)) ? Number(category) : byTitle.get(foldLabel(category));
    if (id === undefined) throw fail(`Línea ${index + 1} del mapa de temas: no hay ninguna categoría «${category}».`);
    map[theme] = id;
  }
  return map;
}

/** A form's optional category field: empty is "none". */
function formCategory(value: FormDataEntryValue | null): number | null | undefined {
  if (value === null) return undefined;
  const text = String(value).trim();
  if (text === '') return null;
  return /^\d{1,10}$/.test(text) ? Number(text) : Number.NaN;
}

function formText(value: FormDataEntryValue | null): string | undefined {
  return value === null ? undefined : String(value);
}

/** The add form's fields as `newHarvestSourceInput` wants them (an empty name is "the host's"). */
export function newHarvestSourceFromForm(form: FormData, choices: ReadonlyArray<{ id: number; title: string }>): unknown {
  const nameText = formText(form.get('name'))?.trim();
  const themes = formText(form.get('themeMap'));
  return {
    url: formText(form.get('url')),
    kind: formText(form.get('kind')),
    name: nameText ? nameText : undefined,
    defaultCategoryId: formCategory(form.get('defaultCategoryId')),
    interval: formText(form.get('interval')) || undefined,
    themeMap: themes === undefined ? undefined : themeMapFromText(themes, choices),
    defaultLanguage: formText(form.get('defaultLanguage')),
    defaultCountry: formText(form.get('defaultCountry')),
    // A checkbox: sent when ticked, absent otherwise.
    paused: form.get('paused') !== null,
  };
}

/** The edit form's fields as `harvestSourceEdit` wants them. */
export function harvestSourceEditFromForm(form: FormData, choices: ReadonlyArray<{ id: number; title: string }>): unknown {
  const themes = formText(form.get('themeMap'));
  return {
    name: formText(form.get('name')),
    url: formText(form.get('url')),
    defaultCategoryId: formCategory(form.get('defaultCategoryId')),
    interval: formText(form.get('interval')),
    themeMap: themes === undefined ? undefined : themeMapFromText(themes, choices),
    defaultLanguage: formText(form.get('defaultLanguage')),
    defaultCountry: formText(form.get('defaultCountry')),
  };
}
