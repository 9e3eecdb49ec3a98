/**
 * Sheet previews as a job of the durable queue (issues #18 and #21): a spreadsheet that enters the
 * archive, by upload or by capture, queues its extraction in the same transaction that records
 * it, so a server that dies right after answering leaves a job for the next worker, never a record
 * without previews for good. `queueMissingSheetPreviews` gives one to the records that lack them.
 *
 * Extractions still run one at a time per process (`scheduleSheetPreviews`): each reads a whole
 * workbook in a worker thread of a few hundred MB, and a burst of jobs must not multiply that.
 */
import { and, eq, inArray, isNotNull, notExists, sql } from 'drizzle-orm';
import type { Db } from '../db/index.ts';
import { alexandrias, sheetPreviews } from '../db/schema.ts';
import { enqueueMany, type JobHandler, type NewJob } from '../jobs/index.ts';
import { scheduleSheetPreviews, SHEET_FORMATS, type SheetPreviewStorage } from './index.ts';

export const SHEET_PREVIEWS_JOB = 'sheet-previews';

export interface SheetPreviewsPayload {
  alexandriaId: number;
  /** The file the previews are of: a record whose file changed since gets its own job. */
  cid: string;
}

/** The job for a record's file; a second one for the same file is never made (its dedupe key). */
export function sheetPreviewsJob(alexandriaId: number, cid: string): NewJob {
  const payload: SheetPreviewsPayload = { alexandriaId, cid };
  return { kind: SHEET_PREVIEWS_JOB, payload, dedupeKey: `sheet-previews:${alexandriaId}:${cid}`, maxAttempts: 3 };
}

/** Whether a record of format `type` has sheets to extract. */
export const hasSheets = (type: string | null) => SHEET_FORMATS.some((format) => format === type);

/** Queues the extraction for every spreadsheet record with a file and no previews; returns how many were new. */
export async function queueMissingSheetPreviews(db: Db): Promise<number> {
  const missing = await db
    .select({ id: alexandrias.id, cid: alexandrias.cid })
    .from(alexandrias)
    .where(
      and(
        inArray(alexandrias.type, [...SHEET_FORMATS]),
        isNotNull(alexandrias.cid),
        notExists(db.select({ one: sql`1` }).from(sheetPreviews).where(eq(sheetPreviews.alexandriaId, alexandrias.id))),
      ),
    );
  const queued = await enqueueMany(db, missing.map((record) => sheetPreviewsJob(record.id, record.cid!)));
  return queued.filter((entry) => entry.created).length;
}

/**
 * The handler of `sheet-previews` jobs. A file that cannot be read gets no previews, and the job is
 * done; any other failure fails the attempt, and the queue tries again later.
 */
export function sheetPreviewsHandler({ store, staging }: SheetPreviewStorage): JobHandler {
  return async (job, { db, signal }) => {
    const { alexandriaId, cid } = job.payload as SheetPreviewsPayload;
    const [record] = await db.select({ cid: alexandrias.cid, type: alexandrias.type }).from(alexandrias).where(eq(alexandrias.id, alexandriaId));
    // Gone, or its file is no longer this one: nothing to do for this file.
    if (!record || record.cid !== cid || !hasSheets(record.type)) return;
    // A shutdown stops the read at once: the job goes back to the queue instead of holding the worker's grace.
    await scheduleSheetPreviews({ db, store, staging, alexandriaId, cid, type: record.type, signal });
  };
}
