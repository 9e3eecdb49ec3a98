/**
 * The fixity audit (issue #19): every stored block is read again and checked against its hash, a
 * pass over the whole store once per `ARCHIVE_FIXITY_PERIOD_DAYS` (30), so that a block damaged on
 * disk is found before a reader meets it and the public record says so.
 *
 * So that it never loads the machine, a pass is cut into slices, one every `SLICE_EVERY_MINUTES`,
 * each reading about the pass's bytes divided by its slices (at least one file): 100 GB over 30
 * days is some 23 MB every ten minutes. A store that grows during a pass gets larger slices, so
 * the pass still ends within its period. Slices are `fixity` jobs of the durable queue, queued by
 * the schedule (`queueDueFixity`, from `background.ts`); a pass's row in `fixity_runs` holds where
 * the next slice resumes (the last CID read, files go in CID order) and its counts, and
 * `fixity_failures` what failed. What a failure does to its records is in `audit.ts`.
 *
 * Every date is the database's (`now()`), never this process's clock.
 */
import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { fixityRuns, jobs } from '../db/schema.ts';
import { enqueue, type JobHandler } from '../jobs/index.ts';
import type { ContentStore } from '../storage/index.ts';
import { auditFile, recordFailure } from './audit.ts';
import { storedBytesAfter, storedFilesAfter, storedFileTotals } from './files.ts';

export { auditFile, recordFailure, type FileAudit, type FailureOutcome } from './audit.ts';

/** The job kind of one slice of a pass. */
export const FIXITY_JOB = 'fixity';

export interface FixitySettings {
  /** How long one pass over the whole store takes (`ARCHIVE_FIXITY_PERIOD_DAYS`, 30; fractions allowed). */
  periodDays: number;
}

export const DEFAULT_FIXITY: FixitySettings = { periodDays: 30 };

/** The pause between two slices of a pass. */
export const SLICE_EVERY_MINUTES = 10;

/** Files one slice reads at most, however small: the database work of a slice stays bounded too. */
const MAX_FILES_PER_SLICE = 2_000;

/** Files fetched from the database at a time while a slice reads. */
const FILES_PER_QUERY = 100;

export interface FixityJobPayload {
  runId: number;
  /** The slice's number in its pass (the run's `slices` when it was queued). */
  slice: number;
}

const seconds = (count: number) => sql`make_interval(secs => ${count})`;

/** How many slices a pass is spread over. */
export function slicesPerPass(settings: FixitySettings): number {
  return Math.max(1, Math.floor((settings.periodDays * 86_400) / (SLICE_EVERY_MINUTES * 60)));
}

/** The bytes one slice of a pass of `bytesTotal` reads. */
export function sliceBudget(bytesTotal: number, settings: FixitySettings): number {
  return Math.max(1, Math.ceil(bytesTotal / slicesPerPass(settings)));
}

/**
 * Starts a pass when none ever ran or the last one finished a period after it began, and queues
 * the slice that is due, once (no second job while one is queued or running). Returns whether a
 * slice was queued.
 */
export async function queueDueFixity(db: Db, settings: FixitySettings = DEFAULT_FIXITY): Promise<boolean> {
  let latest = await latestRun(db, settings);
  if (!latest || (latest.finished && latest.passDue)) {
    const totals = await storedFileTotals(db);
    // Two servers may start the same pass: the number is unique, and the second insert does nothing.
    await db
      .insert(fixityRuns)
      .values({ number: (latest?.number ?? 0) + 1, filesTotal: totals.files, bytesTotal: totals.bytes })
      .onConflictDoNothing({ target: fixityRuns.number });
    latest = await latestRun(db, settings);
  }
  if (!latest || latest.finished || !latest.sliceDue) return false;
  const [active] = await db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.kind, FIXITY_JOB), inArray(jobs.status, ['queued', 'running'])))
    .limit(1);
  if (active) return false;
  const { created } = await enqueue(db, {
    kind: FIXITY_JOB,
    payload: { runId: latest.id, slice: latest.slices } satisfies FixityJobPayload,
    // The minute in the key lets a slice whose job failed for good be queued again on a later turn.
    dedupeKey: `fixity:${latest.id}:${latest.slices}:${latest.minute}`,
    maxAttempts: 3,
  });
  return created;
}

async function latestRun(db: Db, settings: FixitySettings) {
  const [row] = await db
    .select({
      id: fixityRuns.id,
      number: fixityRuns.number,
      slices: fixityRuns.slices,
      finished: sql<boolean>`${fixityRuns.finishedAt} is not null`,
      passDue: sql<boolean>`${fixityRuns.startedAt} + ${seconds(settings.periodDays * 86_400)} <= now()`,
      sliceDue: sql<boolean>`${fixityRuns.nextSliceAt} <= now()`,
      minute: sql<string>`floor(extract(epoch from now()) / 60)::bigint::text`,
    })
    .from(fixityRuns)
    .orderBy(desc(fixityRuns.number))
    .limit(1);
  return row;
}

export interface SliceReport {
  files: number;
  bytes: number;
  failures: number;
  /** The pass read its last file. */
  finished: boolean;
}

export interface SliceOptions {
  /** Bytes to read; the pass's paced share (`sliceBudget`) by default. */
  budgetBytes?: number;
  signal?: AbortSignal;
}

/**
 * Audits slice `slice` of pass `runId`: files after the pass's cursor until the byte budget is
 * spent, each failure recorded as it is found; then moves the pass on, once (a slice already done,
 * or a pass finished, is left alone and null returned).
 */
export async function auditSlice(db: Db, store: ContentStore, settings: FixitySettings, payload: FixityJobPayload, options: SliceOptions = {}): Promise<SliceReport | null> {
  const [row] = await db
    .select({ run: fixityRuns, secondsLeft: sql<number>`extract(epoch from ${fixityRuns.startedAt} + ${seconds(settings.periodDays * 86_400)} - now())::float8` })
    .from(fixityRuns)
    .where(eq(fixityRuns.id, payload.runId));
  const run = row?.run;
  if (!run || run.finishedAt || run.slices !== payload.slice) return null;
  const budget = options.budgetBytes ?? (await pacedBudget(db, settings, run, Number(row.secondsLeft)));
  let cursor = run.cursor;
  const report: SliceReport = { files: 0, bytes: 0, failures: 0, finished: false };
  reading: while (report.bytes < budget && report.files < MAX_FILES_PER_SLICE) {
    const batch = await storedFilesAfter(db, cursor, Math.min(FILES_PER_QUERY, MAX_FILES_PER_SLICE - report.files));
    if (batch.length === 0) {
      report.finished = true;
      break;
    }
    for (const file of batch) {
      options.signal?.throwIfAborted();
      const audit = await auditFile(store, file.cid, options.signal);
      report.files += 1;
      report.bytes += audit.bytes;
      if (!audit.ok) {
        report.failures += 1;
        await recordFailure(db, run.id, file.cid, audit);
      }
      cursor = file.cid;
      if (report.bytes >= budget || report.files >= MAX_FILES_PER_SLICE) break reading;
    }
  }
  // A slice that spent its budget on the last file ends the pass now rather than in an empty slice.
  if (!report.finished) report.finished = (await storedFilesAfter(db, cursor, 1)).length === 0;
  await db
    .update(fixityRuns)
    .set({
      cursor,
      filesChecked: sql`${fixityRuns.filesChecked} + ${report.files}`,
      bytesChecked: sql`${fixityRuns.bytesChecked} + ${report.bytes}`,
      failures: sql`${fixityRuns.failures} + ${report.failures}`,
      slices: sql`${fixityRuns.slices} + 1`,
      nextSliceAt: sql`now() + ${seconds(SLICE_EVERY_MINUTES * 60)}`,
      finishedAt: report.finished ? sql`now()` : null,
    })
    .where(and(eq(fixityRuns.id, run.id), eq(fixityRuns.slices, payload.slice)));
  return report;
}

/**
 * A slice's share: the pass's bytes over its slices, or more when the archive grew since the pass
 * began (its totals were measured then) so that what is left still fits in the time left.
 */
async function pacedBudget(db: Db, settings: FixitySettings, run: typeof fixityRuns.$inferSelect, secondsLeft: number): Promise<number> {
  const slicesLeft = Math.max(1, Math.floor(secondsLeft / (SLICE_EVERY_MINUTES * 60)));
  const left = await storedBytesAfter(db, run.cursor);
  return Math.max(sliceBudget(run.bytesTotal, settings), Math.ceil(left / slicesLeft));
}

/** The handler of `fixity` jobs, for `runWorker`. */
export function fixityHandler(context: { store: ContentStore; settings?: FixitySettings }): JobHandler {
  const settings = context.settings ?? DEFAULT_FIXITY;
  return async (job, { db, signal }) => {
    await auditSlice(db, context.store, settings, job.payload as FixityJobPayload, { signal });
  };
}
